/**
 * Static template tables for the world generator: product templates per category, brands, cities,
 * carriers, nicknames and personas, each written in zh-CN and English. They are built once at module load
 * so that `generateWorld` only picks and combines (it runs on every episode reset).
 *
 * Wording rule for every text here: the avatar may repeat it on air, so it avoids what the reply hooks
 * forbid (absolute terms such as 最/第一/100%, medical claims, unauthorised promises, off-platform contact).
 * Only the special cosmetics (sunscreen, whitening) may carry their registered efficacy words.
 */
import type { Category, RegulatoryKind } from './world.js';

/** A text in both locales: [zh-CN, en]. */
export type T2 = readonly [zh: string, en: string];

/** Why a product may not be returned even within seven days. Stable codes; texts below. */
export type ExclusionCode = 'opened_food' | 'used_cosmetic' | 'hygiene_item' | 'custom_made';

/** Human-readable exclusion texts, as `AfterSalesPolicy.return_exclusions` carries them. */
export const EXCLUSION_TEXT: Readonly<Record<ExclusionCode, T2>> = {
  opened_food: ['食品拆封后不支持七天无理由退货', 'Opened food cannot be returned without a reason'],
  used_cosmetic: ['化妆品拆封使用后不支持七天无理由退货', 'Cosmetics cannot be returned once opened or used'],
  hygiene_item: ['贴身衣物拆封后因卫生原因不支持退货', 'Intimate wear cannot be returned once unsealed, for hygiene reasons'],
  custom_made: ['定制刻字款不支持七天无理由退货', 'Custom engraved items cannot be returned without a reason'],
};

/** Words that mark a SKU value as custom-made (the `custom_made` exclusion applies to those SKUs only). */
export const CUSTOM_MARKERS: readonly string[] = ['定制', 'Custom'];

/** A SKU dimension value, with an optional price delta over the base live price. */
export type DimValue = readonly [value: T2, delta: number];

/** One product template. FAQ answers may use `{a<i>}` (value of attribute i) and `{ship_hours}`, `{ships_from}`, `{carrier}`. */
export interface ProductTemplate {
  readonly key: string;
  readonly category: Category;
  readonly kind: RegulatoryKind;
  readonly names: readonly T2[];
  /** List price range in yuan. */
  readonly price: readonly [number, number];
  readonly attrs: readonly (readonly [name: T2, values: readonly T2[]])[];
  readonly dims: readonly (readonly [name: T2, values: readonly DimValue[]])[];
  readonly faq: readonly (readonly [question: T2, answer: T2, tags: readonly string[]])[];
  readonly exclusions: readonly ExclusionCode[];
}

const v = (zh: string, en: string, delta = 0): DimValue => [[zh, en], delta];
const t = (zh: string, en: string): T2 => [zh, en];

const COLORS_BASIC: readonly DimValue[] = [v('白色', 'White'), v('黑色', 'Black'), v('雾霾蓝', 'Haze blue'), v('燕麦色', 'Oat')];
const SIZES: readonly DimValue[] = [v('S', 'S'), v('M', 'M'), v('L', 'L'), v('XL', 'XL')];

/** Every product template. At least one per category; the generator picks without replacement. */
export const PRODUCT_TEMPLATES: readonly ProductTemplate[] = [
  // ------------------------------------------------------------------ apparel
  {
    key: 'tshirt',
    category: 'apparel',
    kind: 'general',
    names: [t('纯棉圆领短袖T恤', 'Cotton crew-neck T-shirt'), t('宽松落肩短袖T恤', 'Loose drop-shoulder T-shirt')],
    price: [59, 159],
    attrs: [
      [t('面料', 'Fabric'), [t('棉95% 氨纶5%', '95% cotton, 5% spandex'), t('精梳棉', 'Combed cotton')]],
      [t('版型', 'Fit'), [t('宽松', 'Loose'), t('常规', 'Regular')]],
      [t('产地', 'Made in'), [t('广州', 'Guangzhou'), t('杭州', 'Hangzhou')]],
    ],
    dims: [
      [t('颜色', 'Color'), COLORS_BASIC],
      [t('尺码', 'Size'), SIZES],
    ],
    faq: [
      [
        t('怎么洗？', 'How do I wash it?'),
        t('建议30度以下冷水手洗或机洗，反面晾干，避免暴晒', 'Hand or machine wash below 30 C, dry inside out, out of strong sun'),
        ['洗涤'],
      ],
      [
        t('会缩水吗？', 'Will it shrink?'),
        t('出厂前做过预缩处理，按洗标护理基本不会明显缩水', 'It is pre-shrunk; following the care label it keeps its size'),
        ['缩水'],
      ],
      [
        t('身高165体重110斤穿什么码？', 'I am 165 cm and 55 kg, which size?'),
        t('身高160到168、体重100到120斤建议M码，喜欢宽松可以拍L', 'For 160-168 cm and 50-60 kg take M; take L for a looser fit'),
        ['尺码'],
      ],
      [
        t('白色透不透？', 'Is the white one see-through?'),
        t('白色略透，建议搭配肤色内衣', 'White is slightly sheer; wear a skin-tone layer underneath'),
        ['颜色'],
      ],
      [
        t('会起球吗？', 'Does it pill?'),
        t('面料经过抗起球处理，正常穿着洗涤不易起球', 'The fabric has an anti-pilling finish for normal wear and washing'),
        ['起球'],
      ],
    ],
    exclusions: [],
  },
  {
    key: 'down_jacket',
    category: 'apparel',
    kind: 'general',
    names: [t('白鸭绒短款羽绒服', 'Short white duck down jacket'), t('连帽加厚长款羽绒服', 'Hooded long down coat')],
    price: [399, 1299],
    attrs: [
      [t('填充物', 'Filling'), [t('白鸭绒 含绒量90%', 'White duck down, 90% down')]],
      [t('充绒量', 'Fill weight'), [t('180g', '180 g'), t('220g', '220 g')]],
      [t('面料', 'Shell'), [t('聚酯纤维 防泼水', 'Water-repellent polyester')]],
      [t('产地', 'Made in'), [t('平湖', 'Pinghu'), t('常熟', 'Changshu')]],
    ],
    dims: [
      [t('颜色', 'Color'), [v('黑色', 'Black'), v('奶白', 'Cream'), v('雾粉', 'Dusty pink')]],
      [t('尺码', 'Size'), SIZES],
    ],
    faq: [
      [
        t('能机洗吗？', 'Can it be machine washed?'),
        t('建议手洗或专业干洗，不要拧干，避免暴晒', 'Hand wash or dry clean; do not wring or sun-dry'),
        ['洗涤'],
      ],
      [
        t('会钻绒吗？', 'Does down leak out?'),
        t('采用防钻绒面料和走线工艺，正常穿着很少钻绒', 'Down-proof fabric and stitching keep leaking rare in normal wear'),
        ['钻绒'],
      ],
      [
        t('零下10度够暖吗？', 'Warm enough at minus 10 C?'),
        t('充绒量{a1}，适合零下10度到5度左右的天气', 'With {a1} of fill it suits about minus 10 to 5 C'),
        ['保暖'],
      ],
      [
        t('尺码偏大还是偏小？', 'Does it run large or small?'),
        t('版型偏宽松，建议拍平时尺码', 'It is a relaxed fit; take your usual size'),
        ['尺码'],
      ],
    ],
    exclusions: [],
  },
  {
    key: 'jeans',
    category: 'apparel',
    kind: 'general',
    names: [t('高腰直筒牛仔裤', 'High-waist straight jeans'), t('弹力修身牛仔裤', 'Stretch slim jeans')],
    price: [129, 299],
    attrs: [
      [t('面料', 'Fabric'), [t('棉98% 氨纶2%', '98% cotton, 2% spandex')]],
      [t('腰型', 'Rise'), [t('高腰', 'High rise'), t('中腰', 'Mid rise')]],
      [t('产地', 'Made in'), [t('佛山', 'Foshan'), t('新塘', 'Xintang')]],
    ],
    dims: [
      [t('颜色', 'Color'), [v('浅蓝', 'Light blue'), v('深蓝', 'Dark blue'), v('黑色', 'Black')]],
      [t('尺码', 'Size'), [v('26', '26'), v('27', '27'), v('28', '28'), v('29', '29'), v('30', '30')]],
    ],
    faq: [
      [
        t('掉色吗？', 'Does the color run?'),
        t('首次洗涤可能轻微浮色，建议单独冷水反面清洗', 'The first wash may release a little dye; wash alone, cold, inside out'),
        ['掉色'],
      ],
      [
        t('弹力大吗？', 'Is it stretchy?'),
        t('含{a0}，有微弹，久坐不紧绷', 'Made of {a0}, slightly stretchy and comfortable when sitting'),
        ['弹力'],
      ],
      [
        t('腰围怎么选码？', 'How do I pick the waist size?'),
        t('26码腰围约66厘米，每大一码加约2.5厘米，按腰围选码', 'Size 26 fits a 66 cm waist, each size adds about 2.5 cm'),
        ['尺码'],
      ],
    ],
    exclusions: [],
  },
  {
    key: 'underwear',
    category: 'apparel',
    kind: 'general',
    names: [t('莫代尔无痕内裤3条装', 'Modal seamless briefs, 3-pack'), t('无钢圈舒适文胸', 'Wire-free comfort bra')],
    price: [49, 169],
    attrs: [
      [t('面料', 'Fabric'), [t('莫代尔92% 氨纶8%', '92% modal, 8% spandex')]],
      [t('裆部', 'Gusset'), [t('纯棉裆', 'Cotton gusset')]],
      [t('产地', 'Made in'), [t('汕头', 'Shantou')]],
    ],
    dims: [
      [t('颜色', 'Color'), [v('肤色', 'Nude'), v('黑色', 'Black'), v('灰粉', 'Ash pink')]],
      [t('尺码', 'Size'), [v('M', 'M'), v('L', 'L'), v('XL', 'XL')]],
    ],
    faq: [
      [
        t('拆开试穿了能退吗？', 'Can I return it after trying it on?'),
        t(
          '贴身衣物拆封后因卫生原因不支持退换，未拆封可以七天无理由',
          'Once unsealed it cannot be returned for hygiene reasons; sealed packs have 7-day returns',
        ),
        ['退货'],
      ],
      [t('怎么洗？', 'How do I wash it?'), t('建议单独手洗，水温不超过30度', 'Hand wash separately below 30 C'), ['洗涤']],
      [t('勒不勒？', 'Is it tight?'), t('激光切边无痕设计，腰头柔软不勒', 'Laser-cut edges and a soft waistband, not tight'), ['舒适']],
    ],
    exclusions: ['hygiene_item'],
  },
  // ------------------------------------------------------------------ beauty
  {
    key: 'sunscreen',
    category: 'beauty',
    kind: 'special_cosmetic',
    names: [
      t('清透水感防晒乳SPF50+ PA++++', 'Lightweight sunscreen SPF50+ PA++++'),
      t('户外防晒喷雾SPF50+ PA++++', 'Outdoor sunscreen spray SPF50+ PA++++'),
    ],
    price: [79, 199],
    attrs: [
      [t('防晒指数', 'Protection'), [t('SPF50+ PA++++', 'SPF50+ PA++++')]],
      [t('净含量', 'Net content'), [t('50ml', '50 ml'), t('100ml', '100 ml')]],
      [t('适用肤质', 'Skin type'), [t('所有肤质', 'All skin types'), t('混油肌', 'Combination to oily')]],
      [t('备案类型', 'Registration'), [t('国产特殊化妆品（防晒类）', 'Special-use cosmetic (sunscreen)')]],
      [t('保质期', 'Shelf life'), [t('3年', '3 years')]],
    ],
    dims: [[t('规格', 'Pack'), [v('单支装', 'Single'), v('两支装', 'Twin pack', 79)]]],
    faq: [
      [
        t('敏感肌能用吗？', 'Is it OK for sensitive skin?'),
        t(
          '配方无酒精无香精，敏感肌建议先在耳后小面积试用',
          'Alcohol- and fragrance-free; sensitive skin should patch test behind the ear first',
        ),
        ['敏感肌'],
      ],
      [
        t('需要卸妆吗？', 'Do I need makeup remover?'),
        t('质地轻薄，用洗面奶清洁即可，叠加彩妆时建议卸妆', 'It is light; a cleanser is enough, use remover when wearing makeup on top'),
        ['卸妆'],
      ],
      [
        t('多久补涂一次？', 'How often should I reapply?'),
        t('户外建议每2到3小时补涂一次，出汗后及时补涂', 'Outdoors reapply every 2 to 3 hours and after sweating'),
        ['补涂'],
      ],
      [
        t('能带上飞机吗？', 'Can I take it on a plane?'),
        t('本品{a1}，单瓶100ml以内可以随身携带登机', 'This is {a1}; bottles up to 100 ml may go in cabin baggage'),
        ['飞机'],
      ],
    ],
    exclusions: ['used_cosmetic'],
  },
  {
    key: 'whitening_serum',
    category: 'beauty',
    kind: 'special_cosmetic',
    names: [t('烟酰胺美白淡斑精华液', 'Niacinamide brightening serum')],
    price: [169, 399],
    attrs: [
      [t('净含量', 'Net content'), [t('30ml', '30 ml')]],
      [t('核心成分', 'Key ingredients'), [t('烟酰胺 传明酸', 'Niacinamide, tranexamic acid')]],
      [t('备案类型', 'Registration'), [t('国产特殊化妆品（美白祛斑类）', 'Special-use cosmetic (brightening)')]],
      [t('使用方法', 'How to use'), [t('早晚洁面后取2到3滴', '2 to 3 drops morning and evening after cleansing')]],
      [t('保质期', 'Shelf life'), [t('3年', '3 years')]],
    ],
    dims: [[t('规格', 'Pack'), [v('30ml', '30 ml'), v('30ml+10ml小样', '30 ml + 10 ml mini', 40), v('两瓶装', 'Twin pack', 150)]]],
    faq: [
      [
        t('孕妇能用吗？', 'Is it safe during pregnancy?'),
        t('孕期和哺乳期建议咨询医生后再使用', 'During pregnancy or breastfeeding, ask your doctor first'),
        ['孕妇'],
      ],
      [
        t('多久能看到变化？', 'How soon will I see a change?'),
        t('肤质不同感受不同，建议连续使用28天以上再观察', 'Skin differs; use it for at least 28 days before judging'),
        ['效果'],
      ],
      [t('白天能用吗？', 'Is it fine in the daytime?'), t('白天可以用，用后请做好防晒', 'Yes, and wear sunscreen afterwards'), ['白天']],
      [
        t('敏感肌能用吗？', 'Is it OK for sensitive skin?'),
        t('敏感肌建议先隔天使用建立耐受，并在耳后试用', 'Sensitive skin should start every other day and patch test first'),
        ['敏感肌'],
      ],
    ],
    exclusions: ['used_cosmetic'],
  },
  {
    key: 'face_cream',
    category: 'beauty',
    kind: 'cosmetic',
    names: [t('保湿滋润面霜', 'Hydrating face cream'), t('清爽保湿乳霜', 'Light moisturising cream')],
    price: [99, 259],
    attrs: [
      [t('净含量', 'Net content'), [t('50g', '50 g')]],
      [t('核心成分', 'Key ingredients'), [t('神经酰胺 透明质酸钠', 'Ceramides, sodium hyaluronate')]],
      [t('功效', 'Effect'), [t('保湿 滋润', 'Moisturising')]],
      [t('适用肤质', 'Skin type'), [t('干性 混合性', 'Dry to combination')]],
      [t('保质期', 'Shelf life'), [t('3年', '3 years')]],
    ],
    dims: [[t('规格', 'Pack'), [v('50g', '50 g'), v('50g+15g小样', '50 g + 15 g mini', 30)]]],
    faq: [
      [
        t('油皮能用吗？', 'Is it OK for oily skin?'),
        t('质地偏滋润，油皮建议晚上薄涂', 'It is rich; oily skin should apply a thin layer at night'),
        ['油皮'],
      ],
      [
        t('会闷痘吗？', 'Will it clog pores?'),
        t('质地好推开，建议少量多次按压吸收', 'It spreads easily; press in small amounts'),
        ['闷痘'],
      ],
      [
        t('能当妆前用吗？', 'Does it work under makeup?'),
        t('可以，吸收后再上底妆更服帖', 'Yes, let it absorb before foundation'),
        ['妆前'],
      ],
      [
        t('敏感肌能用吗？', 'Is it OK for sensitive skin?'),
        t('无香精配方，敏感肌建议先在耳后试用', 'Fragrance-free; sensitive skin should patch test first'),
        ['敏感肌'],
      ],
    ],
    exclusions: ['used_cosmetic'],
  },
  {
    key: 'lipstick',
    category: 'beauty',
    kind: 'cosmetic',
    names: [t('丝绒雾面口红', 'Velvet matte lipstick')],
    price: [59, 169],
    attrs: [
      [t('净含量', 'Net content'), [t('3.5g', '3.5 g')]],
      [t('质地', 'Finish'), [t('丝绒雾面', 'Velvet matte')]],
      [t('保质期', 'Shelf life'), [t('3年', '3 years')]],
    ],
    dims: [
      [
        t('色号', 'Shade'),
        [
          v('M01 正红', 'M01 Classic red'),
          v('M05 豆沙', 'M05 Rosewood'),
          v('M08 枫叶棕', 'M08 Maple brown'),
          v('M12 奶茶色', 'M12 Milk tea'),
        ],
      ],
    ],
    faq: [
      [
        t('沾杯吗？', 'Does it transfer?'),
        t('成膜后轻微沾杯，抿一下纸巾会更持久', 'Slight transfer once set; blot with a tissue to make it last'),
        ['沾杯'],
      ],
      [
        t('黄皮选哪个色号？', 'Which shade suits warm skin?'),
        t('黄皮推荐M05豆沙和M08枫叶棕，日常通勤都好搭', 'Warm skin tones often pick M05 Rosewood or M08 Maple brown'),
        ['色号'],
      ],
      [
        t('拆封了能退吗？', 'Can I return it once opened?'),
        t('化妆品拆封使用后不支持七天无理由，未拆封可以退', 'Once opened or used it cannot be returned; unopened it can'),
        ['退货'],
      ],
    ],
    exclusions: ['used_cosmetic'],
  },
  {
    key: 'cleanser',
    category: 'beauty',
    kind: 'cosmetic',
    names: [t('氨基酸洁面乳', 'Amino acid facial cleanser')],
    price: [49, 129],
    attrs: [
      [t('净含量', 'Net content'), [t('120g', '120 g')]],
      [t('功效', 'Effect'), [t('清洁', 'Cleansing')]],
      [t('保质期', 'Shelf life'), [t('3年', '3 years')]],
    ],
    dims: [[t('规格', 'Pack'), [v('单支', 'Single'), v('两支装', 'Twin pack', 45)]]],
    faq: [
      [
        t('能卸妆吗？', 'Does it remove makeup?'),
        t('可以洗掉淡妆和防晒，浓妆建议先用卸妆产品', 'It removes light makeup and sunscreen; use remover for heavy makeup'),
        ['卸妆'],
      ],
      [
        t('早上能用吗？', 'Is it fine for mornings?'),
        t('早晚都可以用，泡沫绵密不紧绷', 'Morning and evening; the foam is gentle'),
        ['用法'],
      ],
      [
        t('敏感肌能用吗？', 'Is it OK for sensitive skin?'),
        t('弱酸性氨基酸配方，敏感肌建议先试用', 'A mild amino acid formula; sensitive skin should try a little first'),
        ['敏感肌'],
      ],
    ],
    exclusions: ['used_cosmetic'],
  },
  // ------------------------------------------------------------------ food
  {
    key: 'nuts',
    category: 'food',
    kind: 'food',
    names: [t('每日坚果混合果仁', 'Daily mixed nuts')],
    price: [79, 169],
    attrs: [
      [t('净含量', 'Net content'), [t('每包25g', '25 g per pack')]],
      [t('保质期', 'Shelf life'), [t('180天', '180 days')]],
      [t('配料', 'Ingredients'), [t('腰果 巴旦木 核桃仁 蔓越莓干', 'Cashews, almonds, walnuts, dried cranberries')]],
      [t('贮存方式', 'Storage'), [t('阴凉干燥处', 'Cool and dry place')]],
      [t('产地', 'Made in'), [t('临安', "Lin'an")]],
    ],
    dims: [[t('规格', 'Pack'), [v('30包', '30 packs'), v('60包', '60 packs', 70)]]],
    faq: [
      [
        t('保质期多久？', 'What is the shelf life?'),
        t('保质期{a1}，开袋后建议尽快吃完', 'Shelf life {a1}; eat soon after opening'),
        ['保质期'],
      ],
      [
        t('孕妇能吃吗？', 'Can pregnant women eat it?'),
        t('可以作为日常零食，对坚果过敏的朋友请勿食用', 'It is an everyday snack; not for anyone allergic to nuts'),
        ['孕妇'],
      ],
      [
        t('是独立包装吗？', 'Are the packs individually wrapped?'),
        t('每日一小包独立包装，方便携带', 'Yes, one small sealed pack per day'),
        ['包装'],
      ],
      [
        t('拆开了能退吗？', 'Can I return it once opened?'),
        t('食品拆封后不支持七天无理由退货，未拆封可以退', 'Opened food cannot be returned; unopened packs can'),
        ['退货'],
      ],
    ],
    exclusions: ['opened_food'],
  },
  {
    key: 'luosifen',
    category: 'food',
    kind: 'food',
    names: [t('柳州螺蛳粉', 'Liuzhou river snail rice noodles')],
    price: [39, 99],
    attrs: [
      [t('净含量', 'Net content'), [t('330g/袋', '330 g per bag')]],
      [t('保质期', 'Shelf life'), [t('6个月', '6 months')]],
      [t('产地', 'Made in'), [t('柳州', 'Liuzhou')]],
    ],
    dims: [
      [t('口味', 'Flavor'), [v('原味', 'Original'), v('加辣', 'Extra spicy'), v('加臭', 'Extra funky')]],
      [t('规格', 'Pack'), [v('3袋', '3 bags'), v('5袋', '5 bags', 20), v('10袋', '10 bags', 50)]],
    ],
    faq: [
      [
        t('有多辣？', 'How spicy is it?'),
        t('辣油单独包装，怕辣可以少放', 'The chili oil is in its own pouch; use less if you prefer'),
        ['辣度'],
      ],
      [
        t('怎么煮？', 'How do I cook it?'),
        t('水开后下粉煮8分钟，捞出加入料包即可', 'Boil the noodles 8 minutes, drain, add the sauce packs'),
        ['做法'],
      ],
      [
        t('味道大吗？', 'Does it smell strong?'),
        t('酸笋风味明显，建议在通风处煮', 'The pickled bamboo aroma is strong; cook with ventilation'),
        ['气味'],
      ],
    ],
    exclusions: ['opened_food'],
  },
  {
    key: 'beef_jerky',
    category: 'food',
    kind: 'food',
    names: [t('风干手撕牛肉干', 'Air-dried shredded beef jerky')],
    price: [59, 159],
    attrs: [
      [t('配料', 'Ingredients'), [t('牛肉 食用盐 白砂糖 香辛料', 'Beef, salt, sugar, spices')]],
      [t('保质期', 'Shelf life'), [t('9个月', '9 months')]],
      [t('产地', 'Made in'), [t('锡林郭勒', 'Xilingol')]],
    ],
    dims: [
      [t('口味', 'Flavor'), [v('原味', 'Original'), v('香辣', 'Hot and spicy'), v('孜然', 'Cumin')]],
      [t('规格', 'Pack'), [v('250g', '250 g'), v('500g', '500 g', 60)]],
    ],
    faq: [
      [
        t('硬不硬？', 'Is it hard to chew?'),
        t('风干工艺偏有嚼劲，老人小孩建议撕小条吃', 'It is chewy; tear into thin strips for children and elders'),
        ['口感'],
      ],
      [t('是真牛肉吗？', 'Is it real beef?'), t('配料为{a0}', 'Ingredients: {a0}'), ['配料']],
      [
        t('开封后怎么保存？', 'How do I store it after opening?'),
        t('开袋后密封冷藏，建议3天内吃完', 'Seal and refrigerate after opening, eat within 3 days'),
        ['保存'],
      ],
    ],
    exclusions: ['opened_food'],
  },
  {
    key: 'drip_coffee',
    category: 'food',
    kind: 'food',
    names: [t('云南挂耳咖啡', 'Yunnan drip bag coffee')],
    price: [49, 119],
    attrs: [
      [t('净含量', 'Net content'), [t('每片10g', '10 g per bag')]],
      [t('烘焙度', 'Roast'), [t('中深烘', 'Medium-dark')]],
      [t('产地', 'Origin'), [t('云南普洱', "Pu'er, Yunnan")]],
      [t('保质期', 'Shelf life'), [t('12个月', '12 months')]],
    ],
    dims: [
      [t('风味', 'Profile'), [v('坚果焦糖', 'Nutty caramel'), v('花果酸甜', 'Fruity')]],
      [t('规格', 'Pack'), [v('20片', '20 bags'), v('40片', '40 bags', 45)]],
    ],
    faq: [
      [
        t('孕妇可以喝吗？', 'Can pregnant women drink it?'),
        t('含咖啡因，孕期请适量饮用或先咨询医生', 'It contains caffeine; drink little during pregnancy or ask a doctor'),
        ['孕妇'],
      ],
      [
        t('怎么冲？', 'How do I brew it?'),
        t('用90度左右热水分3次注水，约200ml', 'Pour about 200 ml of water at 90 C in 3 pours'),
        ['冲泡'],
      ],
      [t('有糖吗？', 'Does it contain sugar?'), t('纯咖啡粉，无糖无奶', 'Pure ground coffee, no sugar, no milk'), ['配料']],
    ],
    exclusions: ['opened_food'],
  },
  // ------------------------------------------------------------------ health food
  {
    key: 'fish_oil',
    category: 'health_food',
    kind: 'health_food',
    names: [t('深海鱼油软胶囊', 'Deep-sea fish oil softgels')],
    price: [99, 299],
    attrs: [
      [t('规格', 'Size'), [t('1000mg×100粒', '1000 mg x 100 softgels')]],
      [t('食用方法', 'Dosage'), [t('每日2次，每次1粒', '1 softgel twice a day')]],
      [t('不适宜人群', 'Not for'), [t('孕妇 乳母 儿童', 'Pregnant or breastfeeding women, children')]],
      [t('保质期', 'Shelf life'), [t('24个月', '24 months')]],
    ],
    dims: [[t('规格', 'Pack'), [v('1瓶', '1 bottle'), v('2瓶', '2 bottles', 90)]]],
    faq: [
      [t('每天吃几粒？', 'How many per day?'), t('每日2次，每次1粒，随餐服用', '1 softgel twice a day with meals'), ['用量']],
      [
        t('能代替药物吗？', 'Can it replace medicine?'),
        t('本品是保健食品，不能代替药物', 'This is a health food and cannot replace medicine'),
        ['药物'],
      ],
      [
        t('孕妇能吃吗？', 'Can pregnant women take it?'),
        t('本品不适宜孕妇、乳母和儿童', 'Not suitable for pregnant or breastfeeding women or children'),
        ['孕妇'],
      ],
    ],
    exclusions: ['opened_food'],
  },
  {
    key: 'vitamin_c',
    category: 'health_food',
    kind: 'health_food',
    names: [t('维生素C咀嚼片', 'Vitamin C chewable tablets')],
    price: [49, 129],
    attrs: [
      [t('规格', 'Size'), [t('每片0.8g', '0.8 g per tablet')]],
      [t('口味', 'Flavor'), [t('橙子味', 'Orange')]],
      [t('食用方法', 'Dosage'), [t('每日1片，饭后嚼服', '1 tablet a day, chewed after a meal')]],
      [t('保质期', 'Shelf life'), [t('24个月', '24 months')]],
    ],
    dims: [[t('规格', 'Pack'), [v('60片', '60 tablets'), v('120片', '120 tablets', 40)]]],
    faq: [
      [
        t('小孩能吃吗？', 'Can children take it?'),
        t('本品适宜成人，儿童请选择儿童专用产品', "It is for adults; choose a children's product for kids"),
        ['儿童'],
      ],
      [t('每天吃几片？', 'How many per day?'), t('每日1片，饭后嚼服', '1 tablet a day, chewed after a meal'), ['用量']],
      [
        t('饭前吃还是饭后吃？', 'Before or after meals?'),
        t('建议饭后嚼服，减少对肠胃的刺激', 'After a meal, which is gentler on the stomach'),
        ['用法'],
      ],
    ],
    exclusions: ['opened_food'],
  },
  {
    key: 'protein_powder',
    category: 'health_food',
    kind: 'health_food',
    names: [t('乳清蛋白粉', 'Whey protein powder')],
    price: [199, 459],
    attrs: [
      [t('净含量', 'Net content'), [t('900g', '900 g')]],
      [t('蛋白质含量', 'Protein'), [t('每100g含蛋白质75g', '75 g protein per 100 g')]],
      [t('食用方法', 'Dosage'), [t('每日1到2次，每次30g冲饮', '30 g once or twice a day, mixed with water')]],
      [t('保质期', 'Shelf life'), [t('18个月', '18 months')]],
    ],
    dims: [[t('口味', 'Flavor'), [v('香草', 'Vanilla'), v('巧克力', 'Chocolate')]]],
    faq: [
      [
        t('乳糖不耐受能喝吗？', 'Is it OK if I am lactose intolerant?'),
        t('含少量乳糖，乳糖不耐受建议少量多次尝试', 'It contains a little lactose; start with small servings'),
        ['乳糖'],
      ],
      [
        t('怎么冲？', 'How do I mix it?'),
        t('用200ml温水或牛奶冲调，水温不超过50度', 'Mix with 200 ml of water or milk below 50 C'),
        ['冲泡'],
      ],
      [t('每天喝几次？', 'How many times a day?'), t('每日1到2次，每次30g', '30 g once or twice a day'), ['用量']],
    ],
    exclusions: ['opened_food'],
  },
  {
    key: 'calcium_d',
    category: 'health_food',
    kind: 'health_food',
    names: [t('钙维生素D软胶囊', 'Calcium and vitamin D softgels')],
    price: [69, 189],
    attrs: [
      [t('规格', 'Size'), [t('每粒1.0g', '1.0 g per softgel')]],
      [t('食用方法', 'Dosage'), [t('每日1次，每次1粒', '1 softgel once a day')]],
      [t('适宜人群', 'Suitable for'), [t('需要补充钙和维生素D的成人', 'Adults who need calcium and vitamin D')]],
      [t('保质期', 'Shelf life'), [t('24个月', '24 months')]],
    ],
    dims: [[t('规格', 'Pack'), [v('90粒', '90 softgels'), v('180粒', '180 softgels', 60)]]],
    faq: [
      [t('每天吃几粒？', 'How many per day?'), t('每日1次，每次1粒', '1 softgel once a day'), ['用量']],
      [t('能和牛奶一起吃吗？', 'Can I take it with milk?'), t('可以随餐或搭配牛奶服用', 'Yes, with a meal or with milk'), ['用法']],
      [
        t('能代替药物吗？', 'Can it replace medicine?'),
        t('本品是保健食品，不能代替药物', 'This is a health food and cannot replace medicine'),
        ['药物'],
      ],
    ],
    exclusions: ['opened_food'],
  },
  // ------------------------------------------------------------------ electronics
  {
    key: 'power_bank',
    category: 'electronics',
    kind: 'general',
    names: [t('超薄快充充电宝', 'Slim fast-charging power bank')],
    price: [79, 199],
    attrs: [
      [t('电池容量', 'Capacity'), [t('10000mAh', '10000 mAh'), t('20000mAh', '20000 mAh')]],
      [t('输出功率', 'Output'), [t('22.5W', '22.5 W')]],
      [t('接口', 'Ports'), [t('USB-C+USB-A', 'USB-C + USB-A')]],
      [t('保修', 'Warranty'), [t('1年', '1 year')]],
    ],
    dims: [[t('颜色', 'Color'), [v('白色', 'White'), v('黑色', 'Black'), v('远峰蓝', 'Sierra blue')]]],
    faq: [
      [
        t('能带上飞机吗？', 'Can I take it on a plane?'),
        t('{a0}额定能量低于100Wh，可以随身携带登机，不能托运', '{a0} is under 100 Wh: cabin baggage only, never checked'),
        ['飞机'],
      ],
      [t('保修多久？', 'How long is the warranty?'), t('整机保修{a3}', 'Warranty: {a3}'), ['保修']],
      [
        t('能给笔记本充电吗？', 'Can it charge a laptop?'),
        t('支持PD协议的笔记本可以充，功率{a1}，充得较慢', 'PD laptops can charge at {a1}, slowly'),
        ['笔记本'],
      ],
    ],
    exclusions: [],
  },
  {
    key: 'earbuds',
    category: 'electronics',
    kind: 'general',
    names: [t('主动降噪真无线蓝牙耳机', 'Noise-cancelling true wireless earbuds')],
    price: [149, 499],
    attrs: [
      [t('续航', 'Battery life'), [t('单次6小时，配合充电盒30小时', '6 hours, 30 hours with the case')]],
      [t('蓝牙版本', 'Bluetooth'), [t('5.3', '5.3')]],
      [t('防水等级', 'Water resistance'), [t('IPX4', 'IPX4')]],
      [t('保修', 'Warranty'), [t('1年', '1 year')]],
    ],
    dims: [[t('颜色', 'Color'), [v('白色', 'White'), v('黑色', 'Black')]]],
    faq: [
      [
        t('安卓能用吗？', 'Does it work with Android?'),
        t('安卓和苹果手机都可以蓝牙连接', 'It pairs with Android and iPhone over Bluetooth'),
        ['兼容'],
      ],
      [
        t('能跑步戴吗？', 'Can I run with them?'),
        t('{a2}防汗防水，可以运动佩戴，不能游泳', '{a2} sweat and splash resistant; fine for running, not swimming'),
        ['运动'],
      ],
      [t('保修多久？', 'How long is the warranty?'), t('整机保修{a3}', 'Warranty: {a3}'), ['保修']],
      [t('续航多久？', 'How long does the battery last?'), t('{a0}', '{a0}'), ['续航']],
    ],
    exclusions: [],
  },
  {
    key: 'thermometer',
    category: 'electronics',
    kind: 'medical_device',
    names: [t('红外额温枪', 'Infrared forehead thermometer')],
    price: [69, 199],
    attrs: [
      [t('测量范围', 'Range'), [t('32到42.9度', '32 to 42.9 C')]],
      [t('测量误差', 'Accuracy'), [t('正负0.2度', 'plus or minus 0.2 C')]],
      [t('电池', 'Battery'), [t('2节7号电池', '2 AAA batteries')]],
      [t('保修', 'Warranty'), [t('1年', '1 year')]],
    ],
    dims: [[t('规格', 'Pack'), [v('单机', 'Unit only'), v('单机+电池', 'Unit + batteries', 10)]]],
    faq: [
      [
        t('测得准吗？', 'Is it accurate?'),
        t('在室温15到35度下使用，误差为{a1}', 'Used at a room temperature of 15 to 35 C, accuracy is {a1}'),
        ['精度'],
      ],
      [
        t('能测水温吗？', 'Can it measure water temperature?'),
        t('支持物体温度模式，可以测水温', 'Yes, it has an object temperature mode'),
        ['模式'],
      ],
      [t('保修多久？', 'How long is the warranty?'), t('整机保修{a3}', 'Warranty: {a3}'), ['保修']],
    ],
    exclusions: [],
  },
  {
    key: 'toothbrush',
    category: 'electronics',
    kind: 'general',
    names: [t('声波电动牙刷', 'Sonic electric toothbrush')],
    price: [99, 299],
    attrs: [
      [t('续航', 'Battery life'), [t('充满电约用30天', 'About 30 days per charge')]],
      [t('防水等级', 'Water resistance'), [t('IPX7', 'IPX7')]],
      [t('清洁模式', 'Modes'), [t('3种', '3 modes')]],
      [t('保修', 'Warranty'), [t('2年', '2 years')]],
    ],
    dims: [
      [t('颜色', 'Color'), [v('白色', 'White'), v('粉色', 'Pink'), v('黑色', 'Black')]],
      [t('套装', 'Set'), [v('配2个刷头', 'With 2 heads'), v('配4个刷头', 'With 4 heads', 30)]],
    ],
    faq: [
      [
        t('刷头多久换一次？', 'How often should I change the head?'),
        t('建议每3个月更换一次刷头', 'Change the brush head every 3 months'),
        ['刷头'],
      ],
      [
        t('能带上飞机吗？', 'Can I take it on a plane?'),
        t('可以随身携带，建议关机后放入行李', 'Yes, switch it off before packing'),
        ['飞机'],
      ],
      [t('保修多久？', 'How long is the warranty?'), t('主机保修{a3}', 'Handle warranty: {a3}'), ['保修']],
    ],
    exclusions: [],
  },
  // ------------------------------------------------------------------ home
  {
    key: 'bedding',
    category: 'home',
    kind: 'general',
    names: [t('全棉床上用品四件套', 'Cotton bedding set, 4 pieces')],
    price: [199, 599],
    attrs: [
      [t('面料', 'Fabric'), [t('全棉', 'Pure cotton')]],
      [t('支数', 'Yarn count'), [t('60支长绒棉', '60s long-staple cotton')]],
      [t('工艺', 'Dyeing'), [t('活性印染', 'Reactive dyeing')]],
      [t('产地', 'Made in'), [t('南通', 'Nantong')]],
    ],
    dims: [
      [t('尺寸', 'Bed size'), [v('1.5m床', '1.5 m bed'), v('1.8m床', '1.8 m bed', 40)]],
      [t('颜色', 'Color'), [v('奶咖', 'Latte'), v('雾蓝', 'Mist blue'), v('浅灰', 'Light grey')]],
    ],
    faq: [
      [
        t('会掉色吗？', 'Does the color run?'),
        t('{a2}工艺，首次洗涤建议冷水单独洗', '{a2}; wash alone in cold water the first time'),
        ['掉色'],
      ],
      [
        t('被套多大？', 'How big is the duvet cover?'),
        t('1.5m床被套200x230cm，1.8m床被套220x240cm', '1.5 m bed: 200 x 230 cm cover; 1.8 m bed: 220 x 240 cm'),
        ['尺寸'],
      ],
      [t('会起球吗？', 'Does it pill?'), t('{a1}面料顺滑，正常使用不易起球', '{a1} is smooth and resists pilling in normal use'), ['起球']],
    ],
    exclusions: [],
  },
  {
    key: 'bottle',
    category: 'home',
    kind: 'general',
    names: [t('316不锈钢保温杯', '316 stainless steel insulated bottle')],
    price: [69, 199],
    attrs: [
      [t('容量', 'Capacity'), [t('500ml', '500 ml'), t('380ml', '380 ml')]],
      [t('内胆材质', 'Liner'), [t('316不锈钢', '316 stainless steel')]],
      [t('保温效果', 'Insulation'), [t('6小时后水温约65度', 'About 65 C after 6 hours')]],
      [t('产地', 'Made in'), [t('永康', 'Yongkang')]],
    ],
    dims: [
      [t('颜色', 'Color'), [v('奶白', 'Cream'), v('松绿', 'Pine green'), v('深空灰', 'Space grey')]],
      [t('款式', 'Style'), [v('标准款', 'Standard'), v('定制刻字款', 'Custom engraved', 20)]],
    ],
    faq: [
      [
        t('能装牛奶吗？', 'Can I put milk in it?'),
        t('可以装牛奶，建议当天喝完并及时清洗', 'Yes; finish it the same day and rinse promptly'),
        ['用法'],
      ],
      [
        t('能放洗碗机吗？', 'Is it dishwasher safe?'),
        t('建议手洗，不能放洗碗机和微波炉', 'Hand wash only; no dishwasher, no microwave'),
        ['清洗'],
      ],
      [
        t('刻字款能退吗？', 'Can I return an engraved one?'),
        t('定制刻字款不支持七天无理由退货，标准款可以', 'Engraved bottles cannot be returned without a reason; standard ones can'),
        ['退货'],
      ],
    ],
    exclusions: ['custom_made'],
  },
  {
    key: 'air_fryer',
    category: 'home',
    kind: 'general',
    names: [t('可视窗空气炸锅', 'Air fryer with viewing window')],
    price: [199, 499],
    attrs: [
      [t('容量', 'Capacity'), [t('5L', '5 L'), t('6L', '6 L')]],
      [t('功率', 'Power'), [t('1500W', '1500 W')]],
      [t('保修', 'Warranty'), [t('1年', '1 year')]],
      [t('产地', 'Made in'), [t('佛山', 'Foshan')]],
    ],
    dims: [[t('颜色', 'Color'), [v('奶白', 'Cream'), v('墨绿', 'Dark green')]]],
    faq: [
      [t('需要预热吗？', 'Does it need preheating?'), t('建议200度预热3分钟', 'Preheat at 200 C for 3 minutes'), ['预热']],
      [
        t('好清洗吗？', 'Is it easy to clean?'),
        t('炸篮可拆卸，用软布清洗即可', 'The basket comes out; wipe it with a soft cloth'),
        ['清洗'],
      ],
      [t('保修多久？', 'How long is the warranty?'), t('整机保修{a2}', 'Warranty: {a2}'), ['保修']],
    ],
    exclusions: [],
  },
  {
    key: 'neck_massager',
    category: 'home',
    kind: 'general',
    names: [t('颈部按摩仪', 'Neck massager')],
    price: [129, 399],
    attrs: [
      [t('按摩模式', 'Modes'), [t('4种', '4 modes')]],
      [t('热敷温度', 'Heat'), [t('38到45度', '38 to 45 C')]],
      [t('续航', 'Battery life'), [t('约90分钟', 'About 90 minutes')]],
      [t('保修', 'Warranty'), [t('1年', '1 year')]],
    ],
    dims: [[t('颜色', 'Color'), [v('白色', 'White'), v('粉色', 'Pink')]]],
    faq: [
      [
        t('孕妇能用吗？', 'Can pregnant women use it?'),
        t('孕期和佩戴心脏起搏器的朋友不建议使用', 'Not recommended during pregnancy or with a pacemaker'),
        ['孕妇'],
      ],
      [
        t('能一直开着用吗？', 'Can it run non-stop?'),
        t('单次建议15分钟，到时会自动关机', 'Use 15 minutes at a time; it switches off automatically'),
        ['用法'],
      ],
      [t('保修多久？', 'How long is the warranty?'), t('整机保修{a3}', 'Warranty: {a3}'), ['保修']],
    ],
    exclusions: [],
  },
];

/** Fictional brands per category (real brands would drag real claims and trademarks into the data). */
export const BRANDS: Readonly<Record<Category, readonly T2[]>> = {
  apparel: [t('棉语', 'Cottonly'), t('暖山', 'WarmPeak'), t('鹿野', 'Deerfield'), t('素简', 'Plainly')],
  beauty: [t('植语', 'Plantalk'), t('轻氧', 'AiryO'), t('花溪', 'Floria'), t('澄肌', 'ClearSkin')],
  food: [t('果然鲜', 'FreshNut'), t('山里来', 'HillHarvest'), t('味小馆', 'TasteHouse'), t('云岭', 'CloudRidge')],
  health_food: [t('元养', 'VitaRoot'), t('康禾', 'KangHe'), t('益周', 'WellWeek')],
  electronics: [t('极电', 'VoltEdge'), t('声逸', 'SonaPure'), t('安测', 'SafeSense'), t('闪充', 'QuickJuice')],
  home: [t('家小暖', 'HomeWarm'), t('木卡', 'Mooka'), t('厨趣', 'CookJoy'), t('眠眠', 'SleepWell')],
};

/** Gifts per category ("while stock lasts"). */
export const GIFTS: Readonly<Record<Category, readonly T2[]>> = {
  apparel: [t('同款收纳袋', 'Matching storage pouch'), t('防尘衣罩', 'Garment dust cover')],
  beauty: [t('5ml旅行装小样', '5 ml travel-size sample'), t('化妆包', 'Makeup pouch')],
  food: [t('随机口味试吃装', 'Random-flavor tasting pack'), t('密封夹', 'Bag clip')],
  health_food: [t('便携分装盒', 'Pocket pill case'), t('随行杯', 'Travel cup')],
  electronics: [t('编织数据线', 'Braided charging cable'), t('收纳包', 'Carry pouch')],
  home: [t('清洁刷', 'Cleaning brush'), t('杯刷', 'Bottle brush')],
};

/** Category names, for search matching and coupon names. */
export const CATEGORY_NAMES: Readonly<Record<Category, T2>> = {
  apparel: t('服饰', 'Apparel'),
  beauty: t('美妆', 'Beauty'),
  food: t('食品', 'Food'),
  health_food: t('保健食品', 'Health food'),
  electronics: t('数码', 'Electronics'),
  home: t('家居', 'Home'),
};

/** Warehouse cities products ship from. */
export const CITIES: readonly T2[] = [
  t('杭州', 'Hangzhou'),
  t('广州', 'Guangzhou'),
  t('上海', 'Shanghai'),
  t('义乌', 'Yiwu'),
  t('成都', 'Chengdu'),
  t('苏州', 'Suzhou'),
  t('深圳', 'Shenzhen'),
];

/** Carriers with the prefix their tracking numbers start with. */
export const CARRIERS: readonly (readonly [name: T2, prefix: string])[] = [
  [t('顺丰速运', 'SF Express'), 'SF'],
  [t('中通快递', 'ZTO Express'), 'ZT'],
  [t('圆通速递', 'YTO Express'), 'YT'],
  [t('韵达快递', 'Yunda Express'), 'YD'],
  [t('京东物流', 'JD Logistics'), 'JD'],
];

/** The avatar's persona names and speaking styles. */
export const PERSONA_NAMES: readonly T2[] = [
  t('小桃', 'Peach'),
  t('糖糖', 'Candy'),
  t('阿澈', 'Leo'),
  t('小满', 'Mia'),
  t('星星', 'Stella'),
];
/** Speaking styles of the avatar persona. */
export const PERSONA_STYLES: readonly T2[] = [
  t('元气活泼', 'upbeat and lively'),
  t('温柔知性', 'warm and thoughtful'),
  t('专业干练', 'crisp and professional'),
  t('亲切接地气', 'friendly and down to earth'),
];

/** Viewer nicknames (a world samples 5-20 distinct ones). */
export const NICKNAMES: readonly T2[] = [
  t('小鹿爱购物', 'shopping_deer'),
  t('阿杰不熬夜', 'jay_sleeps_early'),
  t('橘子汽水', 'orange_soda'),
  t('momo酱', 'momo_chan'),
  t('今天也要开心', 'happy_today'),
  t('蓝莓奶昔', 'blueberry_shake'),
  t('打工人小王', 'office_worker_wang'),
  t('芒果不加冰', 'mango_no_ice'),
  t('周末去露营', 'weekend_camper'),
  t('一只喵', 'just_a_cat'),
  t('晚风', 'evening_breeze'),
  t('花花世界', 'flower_world'),
  t('奶茶三分糖', 'milk_tea_less_sugar'),
  t('小熊饼干', 'bear_cookie'),
  t('夏天的风', 'summer_wind'),
  t('慢慢来', 'take_it_slow'),
  t('宝妈小林', 'mom_lin'),
  t('爱吃火锅', 'hotpot_lover'),
  t('柠檬精', 'lemon_zest'),
  t('追光者', 'light_chaser'),
  t('山海', 'mountains_sea'),
  t('豆豆妈', 'doudou_mom'),
  t('咖啡续命', 'coffee_powered'),
  t('云朵', 'little_cloud'),
];
