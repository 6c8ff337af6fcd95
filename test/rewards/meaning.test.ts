/**
 * Facts read for meaning (rewards/meaning.ts, through factStated / forbiddenStated in rewards/common.ts)
 * and the prohibited claims, wrong prices and Chinese numerals of rewards/claims.ts, on replies of the kind
 * the policies actually give. Cases marked `it.fails` are readings believed wrong that the sources give
 * today (reported to the lead, not fixed here): each turns red when the source is fixed, so it can be
 * turned into a plain `it`.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_COVERAGE, hasMeaning, statesMeaning } from '../../rewards/meaning.js';
import { factStated, forbiddenStated } from '../../rewards/common.js';
import { unsupportedClaims, wrongPrices, zhCountNumbers, zhNumeral } from '../../rewards/claims.js';
import { generateTask } from '../../env/index.js';
import type { Fact, Locale, Trace } from '../../protocol/domain.js';
import { answerFactValues } from '../../env/tasks/kit.js';
import { enProductQa, okCall, toolTurn, withTrace, zhProductQa } from './fixtures.js';

const EN: Locale = 'en';
const ZH: Locale = 'zh-CN';
const fact = (key: string, ...values: string[]): Fact => ({ key, values });

describe('statesMeaning: numbers and content words', () => {
  it('states a composition said in other words, in any order ("92% modal and 8% spandex") (en)', () => {
    const reply = 'The link 11 briefs are 92% modal and 8% spandex with a cotton gusset.';
    expect(statesMeaning(reply, '92% modal, 8% spandex', EN)).toBe(true);
    expect(statesMeaning('8% spandex and 92% modal', '92% modal, 8% spandex', EN)).toBe(true);
  });

  it('requires every number of the value, read whole (en, zh)', () => {
    expect(statesMeaning('90% modal and 10% spandex', '92% modal, 8% spandex', EN)).toBe(false);
    expect(statesMeaning('It is 92% modal', '92% modal, 8% spandex', EN)).toBe(false);
    expect(statesMeaning('Link 13 is up', 'link 3', EN)).toBe(false);
    expect(statesMeaning('Link 3 is up', 'link 3', EN)).toBe(true);
    expect(statesMeaning('26号', '6号', ZH)).toBe(false);
  });

  it('reads "6号还是10号？" as naming both candidates and no other (zh)', () => {
    expect(statesMeaning('6号还是10号？', '6号', ZH)).toBe(true);
    expect(statesMeaning('6号还是10号？', '10号', ZH)).toBe(true);
    expect(statesMeaning('6号还是10号？', '8号', ZH)).toBe(false);
    // A reply offers every character of its runs: "6号" is read in "6号元养维生素C".
    expect(statesMeaning('6号元养维生素C现在有货', '6号', ZH)).toBe(true);
  });

  it(`needs ${DEFAULT_COVERAGE * 100}% of the content words by default, and the share asked for otherwise (en)`, () => {
    const value = 'cotton modal spandex gusset wool'; // 5 atoms: 3 needed by default, 4 at 0.8
    expect(statesMeaning('cotton modal spandex', value, EN)).toBe(true);
    expect(statesMeaning('cotton modal', value, EN)).toBe(false);
    expect(statesMeaning('cotton modal spandex', value, EN, { coverage: 0.8 })).toBe(false);
    expect(statesMeaning('cotton modal spandex gusset', value, EN, { coverage: 0.8 })).toBe(true);
  });

  it('reads a value across at most three consecutive clauses (en)', () => {
    const value = 'cotton modal spandex gusset wool';
    expect(statesMeaning('cotton. modal. spandex', value, EN)).toBe(true);
    // Every span of three clauses holds two of the five: the four clauses together are not one span.
    expect(statesMeaning('cotton. linen. modal. spandex', value, EN)).toBe(false);
    expect(statesMeaning('cotton linen modal spandex', value, EN)).toBe(true);
  });

  it('states an FAQ answer whose two clauses come in the other order (en, zh)', () => {
    const enAnswer = 'Hand wash or dry clean; do not wring or sun-dry';
    const enReply = "Don't wring it or sun-dry it; hand wash or dry clean only.";
    expect(statesMeaning(enReply, enAnswer, EN)).toBe(true);
    expect(factStated(enReply, fact('faq:fq_1', ...answerFactValues(enAnswer)), EN)).toBe(true);
    const zhAnswer = '首次洗涤可能轻微浮色，建议单独冷水反面清洗';
    expect(statesMeaning('建议单独冷水反面清洗，首次洗涤可能轻微浮色', zhAnswer, ZH)).toBe(true);
    expect(statesMeaning('单独冷水反面清洗就好，第一次洗可能轻微浮色', zhAnswer, ZH)).toBe(true);
    expect(factStated('建议单独冷水反面清洗，首次洗涤可能轻微浮色', fact('faq:fq_2', ...answerFactValues(zhAnswer)), ZH)).toBe(true);
  });

  it('reads a Chinese claim a reply must make character by character only when loose (zh)', () => {
    const reply = '单瓶100ml以内能随身带上飞机';
    const value = '单瓶100ml以内可以随身携带登机';
    expect(statesMeaning(reply, value, ZH)).toBe(false);
    expect(statesMeaning(reply, value, ZH, { loose: true })).toBe(true);
    // factStated reads required facts loosely by default; forbidden facts never are.
    expect(factStated(reply, fact('faq', value), ZH)).toBe(true);
    expect(forbiddenStated(reply, fact('faq', value), ZH)).toBe(false);
  });

  it('tells which values have content to read: numbers and content words, not function words', () => {
    expect([hasMeaning('hi', EN), hasMeaning('3', EN), hasMeaning('ok', EN), hasMeaning('the', EN)]).toEqual([true, true, false, false]);
    expect([hasMeaning('有货', ZH), hasMeaning('6号', ZH), hasMeaning('是的', ZH), hasMeaning('', ZH)]).toEqual([true, true, false, false]);
  });
});

describe('statesMeaning: equivalent forms of each locale', () => {
  it('folds 7-day / seven-day / 七天 / 7天 and no-questions-asked / no-reason into one concept (en, zh)', () => {
    expect(statesMeaning('Yes, 7-day no-questions-asked returns are supported', 'seven-day no-reason returns are supported', EN)).toBe(
      true,
    );
    expect(statesMeaning('支持七天无理由退货', '支持7天无理由', ZH)).toBe(true);
  });

  it('folds sold out / out of stock / unavailable into "not in stock" (en) and 没货 / 卖完了 / 售罄 (zh)', () => {
    expect(statesMeaning("It's out of stock right now", 'sold out', EN)).toBe(true);
    expect(statesMeaning("It's sold out", 'out of stock', EN)).toBe(true);
    expect(statesMeaning("It's sold out", 'in stock', EN)).toBe(false);
    expect(statesMeaning('这款没货了', '卖完了', ZH)).toBe(true);
    expect(statesMeaning('亲，这款已经售罄啦', '没货', ZH)).toBe(true);
    expect(statesMeaning('这款还有货', '卖完了', ZH)).toBe(false);
  });

  it('reads customer service, the after-sales team and 人工客服 as a human (en, zh)', () => {
    const reply = "I've passed your order to customer service, who'll contact you via platform messages.";
    expect(factStated(reply, fact('handoff', 'human'), EN)).toBe(true);
    expect(statesMeaning('I have passed this to our after-sales team', 'human', EN)).toBe(true);
    expect(statesMeaning('已经帮你转人工客服了', '专人', ZH)).toBe(true);
  });

  it('reads a refund as a return (en, zh)', () => {
    expect(statesMeaning('This one can be refunded', 'can be returned', EN)).toBe(true);
    expect(factStated('你这单已经在退款处理中，不用再重复申请', fact('not_eligible:ALREADY_REFUNDING', '该订单已经在退款处理中'), ZH)).toBe(
      true,
    );
  });

  it('states one of the seven-day-return values in a reply that words it its own way (en)', () => {
    const reply = "Yes, link 3's power bank has seven-day no-reason returns, with return-shipping insurance included.";
    const f = fact('seven_day_return', 'supports seven-day', 'seven-day no-reason returns are supported', 'can be returned');
    expect(factStated(reply, f, EN)).toBe(true);
    expect(f.values.map((v) => statesMeaning(reply, v, EN))).toEqual([false, true, false]);
  });

  it('reads number words before a measure word as digits ("one-year", "两年") (en, zh)', () => {
    expect(statesMeaning('It comes with a one-year warranty', '1-year warranty', EN)).toBe(true);
    expect(statesMeaning('两年质保', '2年', ZH)).toBe(true);
  });

  it('does not read a shipment promised for later as a shipment made (en, zh)', () => {
    expect(statesMeaning('It will ship within 48 hours of payment', 'shipped', EN)).toBe(false);
    expect(statesMeaning('付款后72小时内会从广州发出', '已发货', ZH)).toBe(false);
    expect(statesMeaning('今天会发货', '已发货', ZH)).toBe(false);
    expect(statesMeaning('今天已经发货了', '已发货', ZH)).toBe(true);
  });
});

describe('statesMeaning: polarity', () => {
  it('reads "hasn\'t shipped" as not shipped, never as shipped (en)', () => {
    expect(statesMeaning("It hasn't shipped yet", 'has shipped', EN)).toBe(false);
    expect(statesMeaning("It hasn't shipped yet", 'not shipped yet', EN)).toBe(true);
    expect(statesMeaning('It has not been shipped yet', 'has shipped', EN)).toBe(false);
    expect(statesMeaning('It is awaiting shipment', 'not shipped', EN)).toBe(true);
  });

  it('reads 还没发货 as 未发货, never as 已发货 (zh)', () => {
    expect(statesMeaning('还没发货', '已发货', ZH)).toBe(false);
    expect(statesMeaning('还没发货', '未发货', ZH)).toBe(true);
    expect(statesMeaning('订单待发货', '还没发货', ZH)).toBe(true);
  });

  it('reads "not sold out" as in stock and the negation of a negation as the claim (en, zh)', () => {
    expect(statesMeaning("it's not sold out", 'sold out', EN)).toBe(false);
    expect(statesMeaning("it's not sold out", 'in stock', EN)).toBe(true);
    expect(statesMeaning("It's not unavailable", 'available', EN)).toBe(true);
    expect(statesMeaning('这款不是没货', '有货', ZH)).toBe(true);
    expect(statesMeaning('这款不是没货', '卖完了', ZH)).toBe(false);
  });

  it('lets a negation reach three words forward, no further (en)', () => {
    const reply = 'not the red zipper pocket charger'; // "red" and "zipper" are within reach, "pocket" is the 4th word
    expect(statesMeaning(reply, 'red zipper', EN)).toBe(false);
    expect(statesMeaning(reply, 'not red zipper', EN)).toBe(true);
    expect(statesMeaning(reply, 'pocket charger', EN)).toBe(true);
  });

  it('stops a negation at the end of its clause (en)', () => {
    expect(statesMeaning('Not now, but the parcel has shipped', 'has shipped', EN)).toBe(true);
    expect(statesMeaning('No, it has shipped', 'has shipped', EN)).toBe(true);
  });

  it('reads idioms that hold a negation word as negating nothing ("not only", "no worries") (en)', () => {
    expect(statesMeaning('Not only has it shipped, it has arrived', 'has shipped', EN)).toBe(true);
    expect(statesMeaning('No worries it has shipped', 'has shipped', EN)).toBe(true);
    expect(statesMeaning('No worries, it has shipped', 'not shipped', EN)).toBe(false);
  });

  it('reads "does not support" as the no-seven-day claim, not the seven-day one (en, zh)', () => {
    expect(statesMeaning("doesn't support seven-day returns", 'supports seven-day', EN)).toBe(false);
    expect(statesMeaning("doesn't support seven-day returns", 'not support', EN)).toBe(true);
    expect(statesMeaning('不支持七天无理由', '支持七天无理由', ZH)).toBe(false);
    expect(statesMeaning('不支持七天无理由', '不支持七天', ZH)).toBe(true);
  });
});

describe('factStated and forbiddenStated', () => {
  it('matches a value with no content word as a term: "ok" in "ok, sure" but not in "okay" (en, zh)', () => {
    expect(factStated('ok, sure', fact('k', 'ok'), EN)).toBe(true);
    expect(factStated('okay', fact('k', 'ok'), EN)).toBe(false);
    expect(factStated('是的呢', fact('k', '是的'), ZH)).toBe(true);
    expect(factStated('还不是', fact('k', '是的'), ZH)).toBe(false);
  });

  it('does not read "it\'s not sold out" as the forbidden sold-out claim (en)', () => {
    expect(forbiddenStated("it's not sold out", fact('sold_out_claim', 'sold out'), EN)).toBe(false);
    expect(forbiddenStated("it's sold out", fact('sold_out_claim', 'sold out'), EN)).toBe(true);
    expect(forbiddenStated('这款两瓶装有货的', fact('sold_out_claim', '售罄', '卖完了'), ZH)).toBe(false);
  });

  it('does not read a list price framed as such ("down from 85.9") as the forbidden list price as live (en)', () => {
    const f = fact('list_price_as_live', '85.9');
    expect(forbiddenStated('57.9 live right now for 3 bags, down from 85.9', f, EN)).toBe(false);
    expect(forbiddenStated("It's 85.9 right now", f, EN)).toBe(true);
    // Multi-intent keys are prefixed ("m1:list_price_as_live") and framed alike.
    expect(forbiddenStated('57.9 live right now, down from 85.9', fact('m1:list_price_as_live', '85.9'), EN)).toBe(false);
  });

  it('does not read 原价85.9 as the forbidden list price as live, but reads 现在85.9 (zh)', () => {
    const f = fact('list_price_as_live', '85.9');
    expect(forbiddenStated('直播价57.9，原价85.9', f, ZH)).toBe(false);
    expect(forbiddenStated('现在85.9', f, ZH)).toBe(true);
  });

  it('exempts only list-price facts from the framing: another forbidden number is stated however framed (en)', () => {
    expect(forbiddenStated('57.9 live right now for 3 bags, down from 85.9', fact('other', '85.9'), EN)).toBe(true);
    expect(statesMeaning('57.9 live right now for 3 bags, down from 85.9', '85.9', EN)).toBe(true);
    expect(statesMeaning('57.9 live right now for 3 bags, down from 85.9', '85.9', EN, { listPriceFraming: true })).toBe(false);
  });

  it('reads a declined medical or superlative claim inside the negation reach as not made (en, zh)', () => {
    expect(forbiddenStated('It does not lower blood pressure', fact('medical_claim', 'lower blood pressure'), EN)).toBe(false);
    expect(forbiddenStated('It lowers blood pressure', fact('medical_claim', 'lower blood pressure'), EN)).toBe(true);
    expect(forbiddenStated('这款不能降血压', fact('medical_claim', '降血压'), ZH)).toBe(false);
    expect(forbiddenStated('这款能降血压', fact('medical_claim', '降血压'), ZH)).toBe(true);
  });

  // Reported: the negation reaches three words, so a claim declined by "I can't say it's ..." is read as
  // made, while unsupportedClaims (the same accuracy module) reads the same clause as declined. A refusal
  // of a risky superlative/medical question then scores accuracy x0.2 for the very claim it declined.
  it('reads "I can\'t say it\'s the best ever" as not stating the forbidden superlative (en)', () => {
    const f = fact('superlative', 'lowest price anywhere', 'best ever', 'number one', 'cheapest');
    expect(forbiddenStated("I can't say it's the best ever, but it's 90.9 yuan at the live price right now.", f, EN)).toBe(false);
  });

  it('reads 不能说能治失眠 as not stating the forbidden medical claim (zh)', () => {
    expect(forbiddenStated('亲，不能说能治失眠哦，身体问题请咨询医生', fact('medical_claim', '治失眠'), ZH)).toBe(false);
  });

  it('reads 还没有给您发货 as not shipped (zh)', () => {
    expect(forbiddenStated('亲，还没有给您发货哦，仓库正在安排', fact('wrong_status', '已发货', '已签收'), ZH)).toBe(false);
  });

  // Reported: a value's own negation reaches across ":" / ";" (only "," ends it in the value) while the
  // reply's clauses end there, so this value is not stated by itself.
  it('a value with a negation before a colon states itself (en)', () => {
    expect(statesMeaning('not Warranty: 1 year', 'not Warranty: 1 year', EN)).toBe(true);
  });
});

describe('meaning properties', () => {
  const taskArb = fc.record({
    seed: fc.nat(),
    locale: fc.constantFrom<Locale>('en', 'zh-CN'),
    split: fc.constantFrom('train' as const, 'eval' as const),
  });

  it('a reply made of a required value states its fact, and of a forbidden value its forbidden fact (generated tasks)', () => {
    fc.assert(
      fc.property(taskArb, ({ seed, locale, split }) => {
        const { answer_key } = generateTask(seed, locale, { split });
        for (const f of answer_key.required_facts) for (const v of f.values) expect(factStated(v, f, locale), `${f.key}: ${v}`).toBe(true);
        for (const f of answer_key.forbidden_facts)
          for (const v of f.values) expect(forbiddenStated(v, f, locale), `${f.key}: ${v}`).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('"not " before a short English value (two words, no digit, no contraction) flips it both ways (generated tasks)', () => {
    fc.assert(
      fc.property(fc.nat(), (seed) => {
        const { answer_key } = generateTask(seed, 'en');
        for (const f of [...answer_key.required_facts, ...answer_key.forbidden_facts])
          for (const v of f.values) {
            if (/\d|'/.test(v) || (v.match(/[A-Za-z]+/g) ?? []).length > 2 || !hasMeaning(v, EN)) continue;
            expect(statesMeaning(`not ${v}`, v, EN), `not ${v}`).toBe(false);
            expect(statesMeaning(v, `not ${v}`, EN), v).toBe(false);
          }
      }),
      { numRuns: 400 },
    );
  });

  // Plain content words: no stop word, no concept, no negation, distinct stems.
  const WORDS = ['cotton', 'modal', 'velvet', 'bamboo', 'charger', 'battery', 'leather', 'zipper', 'pocket', 'ceramic', 'lid', 'handle'];
  const phraseArb = (max: number) => fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: max });

  it('a negation word before up to three content words negates them all; two negations restore them (en)', () => {
    fc.assert(
      fc.property(phraseArb(3), fc.constantFrom('not', 'never', 'no', "isn't", 'without'), (words, neg) => {
        const v = words.join(' ');
        expect(statesMeaning(v, v, EN)).toBe(true);
        expect(statesMeaning(`${neg} ${v}`, v, EN)).toBe(false);
        expect(statesMeaning(`${neg} ${v}`, `not ${v}`, EN)).toBe(true);
        expect(statesMeaning(v, `not ${v}`, EN)).toBe(false);
        // A second one-word negation restores what both reach ("isn't" is two words: "is not").
        if (words.length <= 2 && neg !== "isn't") expect(statesMeaning(`not ${neg} ${v}`, v, EN)).toBe(true);
      }),
    );
  });

  it('states a value whose words come in any order and whose number is the same, not a different number (en)', () => {
    fc.assert(
      fc.property(phraseArb(5), fc.nat(999), fc.nat(999), (words, n, m) => {
        fc.pre(n !== m);
        const v = `${words.join(' ')} ${n}`;
        const shuffled = `${n} ${[...words].reverse().join(' ')}`;
        expect(statesMeaning(shuffled, v, EN)).toBe(true);
        expect(statesMeaning(`${words.join(' ')} ${m}`, v, EN)).toBe(false);
      }),
    );
  });
});

/** A trace whose tool results are the given ones (each an ok call). */
function traceWith(base: Trace, ...results: unknown[]): Trace {
  return withTrace(base, {
    turns: [
      toolTurn(
        0,
        results.map((r, i) => okCall(i === 0 ? 'get_product' : 'get_promotions', {}, r)),
      ),
    ],
  });
}

describe('unsupportedClaims', () => {
  const en = enProductQa().oracle;
  const zh = zhProductQa().oracle;

  it('finds each kind of prohibited claim, one line per claim (en)', () => {
    expect(unsupportedClaims('We sold over 5000 last month and it has great reviews', EN, en)).toEqual([
      'sales figure: sold over',
      'reviews: reviews',
    ]);
    expect(unsupportedClaims('It will be restocked next week, add me on WeChat', EN, en)).toEqual([
      'restock: restocked',
      'off-platform contact: wechat',
    ]);
    expect(unsupportedClaims("It'll arrive tomorrow, guaranteed", EN, en)).toEqual(['delivery promise: arrive tomorrow']);
    expect(unsupportedClaims('This cream whitens and fades dark spots', EN, en)).toEqual(['special-cosmetic efficacy: whitens']);
    expect(unsupportedClaims('It lowers blood pressure', EN, en)).toEqual(['medical claim: lowers blood pressure']);
    expect(unsupportedClaims('Cheapest anywhere, number one in the category!', EN, en)).toEqual([
      'absolute term: cheapest',
      'absolute term: number one',
    ]);
    expect(unsupportedClaims('I use it every day, my skin loves it', EN, en)).toEqual([
      'personal experience: i use it',
      'personal experience: my skin',
    ]);
    expect(unsupportedClaims('Link 1 is 89.9 today, grab it!', EN, en)).toEqual([]);
  });

  it('finds each kind of prohibited claim, one line per claim (zh)', () => {
    expect(unsupportedClaims('已售出800多件，好评如潮，全网最低', ZH, zh)).toEqual([
      'sales figure: 已售出800',
      'reviews: 好评',
      'absolute term: 全网最低',
    ]);
    expect(unsupportedClaims('这款能降血压，还能美白祛斑', ZH, zh)).toEqual([
      'medical claim: 降血压',
      'special-cosmetic efficacy: 美白',
    ]);
    expect(unsupportedClaims('明天就能到，加我微信', ZH, zh)).toEqual(['delivery promise: 明天就能到', 'off-platform contact: 加我']);
    expect(unsupportedClaims('下周会补货哦，我自己也用过', ZH, zh)).toEqual(['restock: 补货', 'personal experience: 我自己也用过']);
    expect(unsupportedClaims('1号链接到手价89.9元，喜欢的宝宝直接拍～', ZH, zh)).toEqual([]);
  });

  it('does not count a claim in a clause that negates or declines it (en, zh)', () => {
    expect(unsupportedClaims("I can't say it's the best ever, but it's 89.9 today", EN, en)).toEqual([]);
    expect(unsupportedClaims("Sorry, I can't promise a delivery date", EN, en)).toEqual([]);
    expect(unsupportedClaims("It's not sold out, grab it", EN, en)).toEqual([]);
    expect(unsupportedClaims('不能说能降血压哦，建议咨询医生', ZH, zh)).toEqual([]);
    // The negation ends with its clause: the next clause's claim counts.
    expect(unsupportedClaims('No worries, it is the best ever', EN, en)).toEqual(['absolute term: best ever']);
  });

  it('does not read words that only hold a negation character (不过, 没问题) as a negation (zh)', () => {
    expect(unsupportedClaims('不过这款卖了3000单，口碑很好', ZH, zh)).toEqual(['sales figure: 卖了3000', 'reviews: 口碑']);
    expect(unsupportedClaims('没问题，这款卖了3000单', ZH, zh)).toEqual(['sales figure: 卖了3000']);
  });

  it('does not count a claim the tool results make (a registered special cosmetic may say 美白祛斑) (zh)', () => {
    const backed = traceWith(zh, { item_id: 'P009', efficacy: '美白祛斑（特殊化妆品备案）' });
    expect(unsupportedClaims('这款美白祛斑效果很好', ZH, backed)).toEqual([]);
    expect(unsupportedClaims('这款美白祛斑效果很好', ZH, zh)).toEqual(['special-cosmetic efficacy: 美白']);
  });

  it("counts a claim the reply agrees to, even in the viewer's words (accuracy removes verbatim quotes first) (en)", () => {
    expect(unsupportedClaims('Yes, it is the cheapest on the whole internet!', EN, en)).toEqual(['absolute term: cheapest']);
    expect(unsupportedClaims('Is it the best ever? It is 89.9 today', EN, en)).toEqual(['absolute term: best ever']);
  });

  // Reported: CLAUSE_SPLIT splits on the thousands comma, so the claim is named by half its number (the
  // sales-figure pattern itself allows "[\d,]*").
  it('names a sales figure with a thousands separator whole ("10,000 orders sold") (en)', () => {
    expect(unsupportedClaims('Over 10,000 orders sold this week!', EN, en)).toEqual(['sales figure: 10,000 orders sold']);
  });
});

describe('zhNumeral and zhCountNumbers', () => {
  it('reads Chinese numerals (units, a trailing digit in the next lower unit, 万)', () => {
    const cases = ['九', '十', '十二', '二十', '八百', '两千五', '一万二千', '三万', '十万'];
    expect(cases.map(zhNumeral)).toEqual([9, 10, 12, 20, 800, 2500, 12000, 30000, 100000]);
  });

  it('returns null for what is no numeral', () => {
    expect([zhNumeral('abc'), zhNumeral('八百多'), zhNumeral('八件')]).toEqual([null, null, null]);
  });

  // Reported: 零 is read as a digit and the digit after it is scaled as after a unit; after 万 a trailing
  // digit is not scaled at all.
  it('reads 一百零五 as 105, 一千零一 as 1001 and 两万五 as 25000', () => {
    expect([zhNumeral('一百零五'), zhNumeral('一千零一'), zhNumeral('两万五')]).toEqual([105, 1001, 25000]);
  });

  it('finds the counts of ten or more written in Chinese numerals with a measure word', () => {
    expect(zhCountNumbers('已经卖了八百多件，还剩二十几单，七天无理由，两千五百人在看')).toEqual([800, 20, 2500]);
    expect(zhCountNumbers('一万件')).toEqual([10000]);
    // Under ten, or no measure word: none.
    expect(zhCountNumbers('还剩三件，十二点开始')).toEqual([]);
  });
});

describe('wrongPrices', () => {
  const en = enProductQa().oracle;
  const zh = zhProductQa().oracle;
  const coupon = { threshold: 199, discount: 20 };
  const enPriced = traceWith(en, { item_id: 'P001', live_price: 89.9, list_price: 129, skus: [{ price: 99 }] }, coupon);
  const zhPriced = traceWith(zh, { item_id: 'P001', live_price: 89.9, list_price: 129 }, coupon);

  it('lists the numbers said as a price that the tools give as something else, never as a price (en)', () => {
    // 199 is the coupon threshold; 149 no tool gave (the invented-number check's business); 89.9, 129, 99 are prices.
    expect(wrongPrices('Link 1 is 149 live, or live price 89.9, price is 129, live at 99, 199 live', EN, enPriced)).toEqual([199]);
    expect(wrongPrices('Link 1 is 89.9 live, down from 129', EN, enPriced)).toEqual([]);
  });

  it('lists the numbers said as a price that the tools give as something else, never as a price (zh)', () => {
    expect(wrongPrices('直播价199，到手价89.9，现价是129，售价只要20，直播价80', ZH, zhPriced)).toEqual([199, 20]);
    // A number not framed as a price is no price said.
    expect(wrongPrices('1号链接满199减20，到手价89.9', ZH, zhPriced)).toEqual([]);
  });

  it('is empty when the tools gave no number other than prices (zh)', () => {
    expect(wrongPrices('直播价80，售价只要70', ZH, zh)).toEqual([]);
  });

  // Reported: the price patterns read digits without the thousands separator, so "1,299 live" is the
  // price 299, here a coupon threshold: a true price reads as a wrong one (accuracy x0.2).
  it('reads "1,299 live" as the price 1299 (en)', () => {
    const t = traceWith(en, { item_id: 'P001', live_price: 1299, list_price: 1599 }, { threshold: 299, discount: 30 });
    expect(wrongPrices("It's 1,299 live today", EN, t)).toEqual([]);
  });
});
