/**
 * A minimal harness written from docs/HARNESS.md alone, as a team would start one: two reply skills under
 * their own names, two tools bound to simulated services under their own names, a skill loader, three
 * prompt blocks, one hook, and a task file (greetings, hand-written: the generator serves product
 * questions, the file serves chit-chat). Tests write it into a temporary directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MANIFEST = `name: mini-shop
version: 0.1.0
description: Two skills, two service tools and one hook.
locales: [zh-CN, en]
intents:
  product_qa: item-facts
  chitchat: { skill: small-talk, generate: false }
tools:
  item_lookup: product.get_product
  stock_lookup: inventory.check_stock
  open_skill: environment.load_skill
`;

function skill(name: string, intent: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  kind: reply\n  intents: [${intent}]\n---\n${body}\n`;
}

const SKILLS = {
  'zh-CN': {
    'item-facts': skill('item-facts', 'product_qa', '观众问商品的价格、规格、库存时使用。', '# 商品事实\n\n- 先用 item_lookup 查商品，库存用 stock_lookup 查。\n- 只说工具查到的数字。\n- 口语化，一两句话。'),
    'small-talk': skill('small-talk', 'chitchat', '观众打招呼、闲聊、夸奖时使用。', '# 闲聊\n\n- 热情简短地回应，一两句话。\n- 不要编造个人经历。'),
  },
  en: {
    'item-facts': skill('item-facts', 'product_qa', "Use when a viewer asks a product's price, options or stock.", '# Item facts\n\n- Look the item up with item_lookup first; stock with stock_lookup.\n- State only numbers the tools returned.\n- Spoken style, one or two sentences.'),
    'small-talk': skill('small-talk', 'chitchat', 'Use for greetings, small talk and compliments.', '# Small talk\n\n- Reply warmly and briefly, one or two sentences.\n- Never invent a personal life.'),
  },
};

function tool(name: string, description: string, properties: Record<string, unknown>, required?: string[]): string {
  const parameters = { type: 'object', properties, ...(required ? { required } : {}), additionalProperties: false };
  return JSON.stringify({ type: 'function', function: { name, description, parameters } }, null, 2);
}

const TOOLS: Record<string, string> = {
  item_lookup: tool('item_lookup', '按链接号或商品ID查询商品的价格、规格、库存和政策。', {
    link_no: { type: 'integer', description: '链接号。', minimum: 1 },
    item_id: { type: 'string', description: '商品ID。' },
  }),
  stock_lookup: tool('stock_lookup', '查询商品各规格的实时库存。', { item_id: { type: 'string', description: '商品ID。' }, sku_id: { type: 'string', description: '可选：规格ID。' } }, ['item_id']),
  open_skill: tool('open_skill', '加载一个技能的完整说明。', { name: { type: 'string', description: '技能名称。' } }, ['name']),
};

const TOOLS_EN = {
  item_lookup: "Look up a product's price, options, stock and policies by link number or item id.",
  'item_lookup.link_no': 'The link number.',
  'item_lookup.item_id': 'The item id.',
  stock_lookup: 'Check live stock for each option of a product.',
  'stock_lookup.item_id': 'The item id.',
  'stock_lookup.sku_id': 'Optional: one option id.',
  open_skill: "Load a skill's full instructions.",
  'open_skill.name': 'The skill name.',
};

const PROMPT = `header_style: markdown
separator: "\\n\\n"
item_style: dash
tools_doc_style: none
extra_context: []
blocks:
  - id: persona
    zh-CN: { title: 人设, template: "你是直播间的AI主播「{{persona_name}}」，风格：{{persona_style}}。", items: [] }
    en: { title: Persona, template: "You are {{persona_name}}, the AI host of a live room. Style: {{persona_style}}.", items: [] }
  - id: product_specs
    zh-CN: { title: 商品, template: "当前商品：\\n{{current_product}}\\n商品列表：\\n{{lineup}}", items: [] }
    en: { title: Products, template: "Now presenting:\\n{{current_product}}\\nLineup:\\n{{lineup}}", items: [] }
  - id: skills_index
    zh-CN: { title: 技能, template: "回复前先用 open_skill 加载合适的技能：\\n{{skills}}", items: [] }
    en: { title: Skills, template: "Load the fitting skill with open_skill before you reply:\\n{{skills}}", items: [] }
`;

const HOOKS = `limits:
  reply_max_chars: 150
  max_turns: 8
hooks:
  - id: no_markdown
    kind: reply_format
    stage: reply
    enabled: true
    params:
      checks: [EMPTY_REPLY, TOO_LONG, MARKDOWN]
      markdown_patterns: ["\\\\*\\\\*", "^#+\\\\s"]
      emoji_pattern: "\\\\p{Extended_Pictographic}"
      think_pattern: "</?think>"
retry:
  max_retries: 1
  mode: block
  feedback_style: natural
  templates:
    zh-CN:
      EMPTY_REPLY: "{message}。请给观众一句完整的回复。"
      TOO_LONG: "{message}。请说短一些。"
      MARKDOWN: "{message}。请改成不带格式的口语。"
    en:
      EMPTY_REPLY: "{message}. Give the viewer one full sentence."
      TOO_LONG: "{message}. Say it shorter."
      MARKDOWN: "{message}. Say it as plain speech."
`;

const EMPTY_STATE = { issued_coupons: [], pushed_cards: [], handoffs: [], refusals: [] };

function greeting(id: string, locale: 'zh-CN' | 'en', split: 'train' | 'eval', worldSeed: number, message: string, fact: string, reply: string) {
  return {
    id,
    intent: 'chitchat',
    locale,
    split,
    world_seed: worldSeed,
    viewer_id: 'vw_mini01',
    messages: [message],
    history: [],
    answer_key: {
      expect: 'answer',
      reply_skills: ['small-talk'],
      strategy_skills: [],
      required_calls: [],
      solution: [],
      optional_tools: [],
      required_facts: [{ key: 'greeting', values: [fact] }],
      forbidden_facts: [],
      expected_state: EMPTY_STATE,
      cta: false,
      reference_reply: reply,
    },
  };
}

/** The harness's task file: greetings in both locales and splits. */
export const MINI_TASKS = [
  greeting('mini-greet-zh-train', 'zh-CN', 'train', 7, '主播晚上好', '晚上好', '晚上好呀，欢迎来到直播间，喜欢的宝贝可以多看看'),
  greeting('mini-greet-zh-eval', 'zh-CN', 'eval', 8, '大家好，我刚进来', '欢迎', '欢迎欢迎，刚好在讲今天的好物，慢慢看哦'),
  greeting('mini-greet-en-train', 'en', 'train', 9, 'Hi everyone, good evening!', 'good evening', 'Good evening and welcome to the stream, take a look around'),
  greeting('mini-greet-en-eval', 'en', 'eval', 10, 'Hello host, just joined', 'welcome', 'Welcome in, glad you joined us, have a look at what we are showing'),
];

/** Write the minimal harness into `dir` (created). */
export function writeMiniHarness(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'harness.yaml'), MANIFEST);
  for (const [locale, skills] of Object.entries(SKILLS)) {
    mkdirSync(join(dir, 'skills', locale), { recursive: true });
    for (const [name, text] of Object.entries(skills)) writeFileSync(join(dir, 'skills', locale, `${name}.md`), text);
  }
  mkdirSync(join(dir, 'tools', 'i18n'), { recursive: true });
  for (const [name, text] of Object.entries(TOOLS)) writeFileSync(join(dir, 'tools', `${name}.json`), text);
  writeFileSync(join(dir, 'tools', 'i18n', 'en.json'), JSON.stringify(TOOLS_EN, null, 2));
  writeFileSync(join(dir, 'prompt.yaml'), PROMPT);
  writeFileSync(join(dir, 'hooks.yaml'), HOOKS);
  mkdirSync(join(dir, 'tasks'), { recursive: true });
  writeFileSync(join(dir, 'tasks', 'greetings.jsonl'), MINI_TASKS.map((t) => JSON.stringify(t)).join('\n') + '\n');
  return dir;
}
