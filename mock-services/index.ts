/** Public surface of `mock-services/`: the world generator, its types and the canonical tool services. */
export { worldFor, worldOfTask, setWorldCacheShare, WORLD_CACHE_SIZE } from './cache.js';
export { generateWorld, couponCovers, exclusionCodesOf, isCustomSku, optionCodes } from './generate.js';
export { CATEGORIES } from './world.js';
export type {
  Category,
  RegulatoryKind,
  Sku,
  Faq,
  Shipping,
  AfterSalesPolicy,
  Product,
  Coupon,
  FlashSale,
  Bundle,
  Gift,
  Presale,
  Viewer,
  OrderStatus,
  Order,
  Room,
  World,
  WorldData,
} from './world.js';
export type { ExclusionCode } from './catalog.js';
export { EXCLUSION_TEXT } from './catalog.js';
export { toIso, parseIso, MINUTE, HOUR, DAY } from './time.js';
export { productByLink, productById, couponById, viewerById, orderById } from './lookup.js';
export { SERVICES, callService, drawFault, faultOutcome, malformedOutcome, productView, returnEligibility, RETURN_REASONS } from './services.js';
export type { ServiceContext, MockService, FaultOptions, ReturnReasonCode } from './services.js';
export { searchTokens } from './search.js';
export {
  MARKETING_SERVER,
  MARKETING_TOOLS,
  MCP_CONTEXT_META,
  McpContextRegistry,
  callMarketingDirect,
  createMarketingServer,
  mcpToOutcome,
  mcpToolToOpenAi,
  openAiToMcpTool,
  outcomeToMcp,
  handleMarketingCall,
  serveMarketingHttp,
} from './mcp.js';
export type { MarketingServer, McpCallContext, MarketingHttpServer } from './mcp.js';
