/**
 * effectiveness 3.1: a reply that reads out the prompt's layout (the product card's field labels, an FAQ's
 * "Q: … A: …") is pasted, not spoken. Found by auditing on held-out tasks: the blind `faq_and_price`
 * strategy (paste the closest FAQ line and the price line) earned up to 1.0 when the pasted FAQ held the
 * answer. Played through real episodes, the same facts spoken keep their reward, pasted they do not.
 */
import { describe, expect, it } from 'vitest';
import { readsPromptLayout } from '../../rewards/modules/effectiveness.js';
import { defaultEnvConfig } from '../../env/index.js';
import { runAudit } from '../../eval/index.js';
import { playEpisode } from '../../eval/evaluate.js';
import { BLIND_POLICIES } from '../../policies/blind.js';
import { oraclePolicy } from '../../policies/index.js';

describe('readsPromptLayout', () => {
  it('reads the card labels and the Q/A form as layout, in both locales', () => {
    for (const r of [
      'Can pregnant women drink it? A: It contains caffeine; drink little during pregnancy brand: TasteHouse; l',
      'Is it real beef? A: Ingredients: Beef, salt, sugar, spices brand: HillHarvest; live price: from 75.9; list price: 91.9',
      'Q: how many a day? It is one a day.',
      '是独立包装吗？ 答: 每日一小包独立包装，方便携带 品牌: 味小馆；直播价: 50起；原价: 80',
      '问：能带上飞机吗 答：可以',
      '直播价：89.9，原价：129',
    ])
      expect(readsPromptLayout(r), r).toBe(true);
  });

  it('leaves spoken replies alone: times, "plan A", a colon in a sentence', () => {
    for (const r of [
      'The flash sale ends at 20:30 tonight, 60.9 while it lasts.',
      "It's 89.9 live, down from a list price of 129.",
      'Plan A is the 50 g jar: 78.9 live.',
      'Good question: yes, it contains caffeine, so go easy during pregnancy.',
      '秒杀今晚20:30结束，秒杀价60.9元，还剩116台。',
      '这款直播价89.9元，原价129元，喜欢可以下单。',
      '答案是可以的，按说明每天一袋。',
    ])
      expect(readsPromptLayout(r), r).toBe(false);
  });
});

describe('the FAQ-and-price paste on held-out tasks', () => {
  it('no longer earns more than half on the factual tasks it happens to answer (audit, eval split, every preset)', () => {
    const report = runAudit({ episodes: 200, seed: 1, presets: ['identity', 'train', 'eval'], strategies: ['faq_and_price'], taskSplit: 'eval' });
    const rows = report.rows.filter((r) => r.policy === 'faq_and_price');
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.p90_factual, r.preset).toBeLessThanOrEqual(0.5);
    expect(report.failures).toEqual([]);
  }, 300_000);

  it('the pasted FAQ answer earns less than the same answer spoken, and says why', () => {
    const env = defaultEnvConfig();
    const paste = BLIND_POLICIES.get('faq_and_price');
    if (!paste) throw new Error('no faq_and_price strategy');
    // Seed 54 (en, eval split, identity): "Can pregnant women drink it?", and the FAQ holds the answer.
    const pasted = playEpisode(env, { policy: paste, episodes: 1, seed: 54, variant: 'identity', locale: 'en', taskSplit: 'eval' }, 54);
    expect(pasted.intent).toBe('product_qa');
    expect(pasted.components.accuracy).toBe(1);
    expect(pasted.components.effectiveness).toBeLessThanOrEqual(0.3);
    const oracle = playEpisode(env, { policy: oraclePolicy, episodes: 1, seed: 54, variant: 'identity', locale: 'en', taskSplit: 'eval' }, 54);
    expect(oracle.reward).toBe(1);
    expect(pasted.reward).toBeLessThan(oracle.reward - 0.15);
  });
});
