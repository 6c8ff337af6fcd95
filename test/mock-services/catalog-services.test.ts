import { describe, it, expect } from 'vitest';
import { callService, productByLink, productById } from '../../mock-services/index.js';
import { ctxFor, dataOf, errOf, world } from './fixtures.js';

describe('get_product', () => {
  const w = world(7, 'zh-CN');
  const ctx = ctxFor(w);
  const p = w.products[2];
  const expected = {
    item_id: p.item_id,
    link_no: p.link_no,
    title: p.title,
    brand: p.brand,
    category: p.category,
    regulatory_kind: p.regulatory_kind,
    status: p.status,
    list_price: p.list_price,
    live_price: p.live_price,
    attributes: p.attributes,
    skus: p.skus.map((s) => ({ sku_id: s.sku_id, spec_text: s.spec_text, price: s.price, stock: s.stock })),
    shipping: p.shipping,
    after_sales: p.after_sales,
  };

  it('answers by link number and by item id with the same whole value', () => {
    expect(dataOf(callService('get_product', { link_no: p.link_no }, ctx))).toEqual(expected);
    expect(dataOf(callService('get_product', { item_id: p.item_id }, ctx))).toEqual(expected);
    // Canonical key order, so that serialised observations are byte-stable.
    expect(Object.keys(dataOf(callService('get_product', { link_no: p.link_no }, ctx)))).toEqual(Object.keys(expected));
  });

  it('returns a copy: editing the answer never edits the world', () => {
    const d = dataOf(callService('get_product', { link_no: p.link_no }, ctx));
    d.skus[0].stock = -1;
    d.attributes.x = 'y';
    expect(p.skus[0].stock).not.toBe(-1);
    expect(p.attributes.x).toBeUndefined();
  });

  it('rejects neither, both, wrong types and unknown ids with typed errors', () => {
    expect(errOf(callService('get_product', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'link_no' });
    expect(errOf(callService('get_product', { link_no: 1, item_id: p.item_id }, ctx))).toEqual({
      code: 'INVALID_ARGUMENTS',
      field: 'link_no',
    });
    expect(errOf(callService('get_product', { link_no: '3' }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'link_no' });
    expect(errOf(callService('get_product', { link_no: 0 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'link_no' });
    expect(errOf(callService('get_product', { link_no: 1.5 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'link_no' });
    expect(errOf(callService('get_product', { item_id: 42 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'item_id' });
    expect(errOf(callService('get_product', { link_no: w.products.length + 1 }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'link_no' });
    expect(errOf(callService('get_product', { item_id: 'it_nope' }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'item_id' });
    expect(errOf(callService('get_product', 'link 3', ctx))).toEqual({ code: 'INVALID_ARGUMENTS' });
  });

  it('helpers find products by link and id', () => {
    expect(productByLink(w, p.link_no)).toBe(p);
    expect(productById(w, p.item_id)).toBe(p);
    expect(productByLink(w, 999)).toBeUndefined();
    expect(productById(w, 'it_nope')).toBeUndefined();
  });
});

describe('search_products', () => {
  it('finds a product by words of its title, best match first (zh bigrams)', () => {
    const w = world(7, 'zh-CN');
    const p = w.products.find((x) => x.title.includes('防晒'));
    expect(p).toBeDefined();
    const out = dataOf(callService('search_products', { query: '防晒喷雾' }, ctxFor(w)));
    expect(out.results[0]).toEqual({
      item_id: p!.item_id,
      link_no: p!.link_no,
      title: p!.title,
      live_price: p!.live_price,
      status: p!.status,
    });
    expect(out.results.length).toBeLessThanOrEqual(3);
  });

  it('finds a product by English words, plural-insensitive (en word overlap)', () => {
    const w = world(7, 'en');
    const p = w.products.find((x) => x.title.includes('softgels'))!;
    const out = dataOf(callService('search_products', { query: 'fish oil softgel' }, ctxFor(w)));
    expect(out.results[0].item_id).toBe(p.item_id);
  });

  it('filters by category and returns at most 3 results; no match -> empty list', () => {
    const w = world(11, 'zh-CN');
    const out = dataOf(callService('search_products', { query: '保修 电池 颜色 白色 黑色', category: 'electronics' }, ctxFor(w)));
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.length).toBeLessThanOrEqual(3);
    for (const r of out.results) expect(productById(w, r.item_id)?.category).toBe('electronics');
    expect(dataOf(callService('search_products', { query: 'zzqqxx' }, ctxFor(w)))).toEqual({ results: [] });
  });

  it('is deterministic', () => {
    const w = world(3, 'zh-CN');
    const a = callService('search_products', { query: '纯棉 T恤 白色' }, ctxFor(w));
    const b = callService('search_products', { query: '纯棉 T恤 白色' }, ctxFor(w));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('rejects bad arguments', () => {
    const w = world();
    const ctx = ctxFor(w);
    expect(errOf(callService('search_products', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'query' });
    expect(errOf(callService('search_products', { query: 5 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'query' });
    expect(errOf(callService('search_products', { query: '' }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'query' });
    expect(errOf(callService('search_products', { query: 'x', category: 'toys' }, ctx))).toEqual({
      code: 'INVALID_ARGUMENTS',
      field: 'category',
    });
  });
});

describe('check_stock', () => {
  const w = world(7, 'zh-CN');
  const ctx = ctxFor(w);

  it('reports every SKU with its stock status (0 sold_out, 1-10 low, else in_stock)', () => {
    const p = w.products[0];
    p.skus = [
      { sku_id: 'sk_a', spec: { 颜色: '白色' }, spec_text: '白色', price: 10, stock: 0 },
      { sku_id: 'sk_b', spec: { 颜色: '黑色' }, spec_text: '黑色', price: 10, stock: 10 },
      { sku_id: 'sk_c', spec: { 颜色: '蓝色' }, spec_text: '蓝色', price: 10, stock: 11 },
    ];
    expect(dataOf(callService('check_stock', { item_id: p.item_id }, ctx))).toEqual({
      item_id: p.item_id,
      skus: [
        { sku_id: 'sk_a', spec_text: '白色', stock: 0, stock_status: 'sold_out' },
        { sku_id: 'sk_b', spec_text: '黑色', stock: 10, stock_status: 'low' },
        { sku_id: 'sk_c', spec_text: '蓝色', stock: 11, stock_status: 'in_stock' },
      ],
    });
    expect(dataOf(callService('check_stock', { item_id: p.item_id, sku_id: 'sk_b' }, ctx))).toEqual({
      item_id: p.item_id,
      skus: [{ sku_id: 'sk_b', spec_text: '黑色', stock: 10, stock_status: 'low' }],
    });
  });

  it('rejects bad arguments and unknown ids', () => {
    const p = w.products[1];
    expect(errOf(callService('check_stock', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'item_id' });
    expect(errOf(callService('check_stock', { item_id: 1 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'item_id' });
    expect(errOf(callService('check_stock', { item_id: p.item_id, sku_id: false }, ctx))).toEqual({
      code: 'INVALID_ARGUMENTS',
      field: 'sku_id',
    });
    expect(errOf(callService('check_stock', { item_id: 'it_nope' }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'item_id' });
    expect(errOf(callService('check_stock', { item_id: p.item_id, sku_id: 'sk_nope' }, ctx))).toEqual({
      code: 'NOT_FOUND',
      field: 'sku_id',
    });
  });
});

describe('search_faq', () => {
  it('finds the matching FAQ of a given item, as a whole value', () => {
    const w = world(7, 'zh-CN');
    const p = w.products[0];
    p.faq = [
      { faq_id: 'fq_1', question: '怎么洗？', answer: '建议冷水手洗', tags: ['洗涤'] },
      { faq_id: 'fq_2', question: '会缩水吗？', answer: '预缩处理过', tags: ['缩水'] },
      { faq_id: 'fq_3', question: '敏感肌能用吗？', answer: '建议先试用', tags: ['敏感肌'] },
    ];
    expect(dataOf(callService('search_faq', { question: '主播这个会不会缩水啊', item_id: p.item_id }, ctxFor(w)))).toEqual({
      results: [{ faq_id: 'fq_2', question: '会缩水吗？', answer: '预缩处理过' }],
    });
  });

  it('searches every product when no item is given, top 3, and matches English questions', () => {
    const w = world(7, 'en');
    const out = dataOf(callService('search_faq', { question: 'can I take this on a plane?' }, ctxFor(w)));
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.length).toBeLessThanOrEqual(3);
    for (const r of out.results) expect(r.question.toLowerCase()).toContain('plane');
  });

  it('every generated FAQ is found by its own question', () => {
    for (const seed of [1, 2, 3]) {
      for (const locale of ['zh-CN', 'en'] as const) {
        const w = world(seed, locale);
        for (const p of w.products) {
          for (const f of p.faq) {
            const out = dataOf(callService('search_faq', { question: f.question, item_id: p.item_id }, ctxFor(w)));
            expect(out.results.map((r: { faq_id: string }) => r.faq_id)).toContain(f.faq_id);
          }
        }
      }
    }
  });

  it('rejects bad arguments and unknown items', () => {
    const w = world();
    const ctx = ctxFor(w);
    expect(errOf(callService('search_faq', {}, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'question' });
    expect(errOf(callService('search_faq', { question: ['a'] }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'question' });
    expect(errOf(callService('search_faq', { question: 'a', item_id: 3 }, ctx))).toEqual({ code: 'INVALID_ARGUMENTS', field: 'item_id' });
    expect(errOf(callService('search_faq', { question: 'a', item_id: 'it_nope' }, ctx))).toEqual({ code: 'NOT_FOUND', field: 'item_id' });
  });
});

describe('dispatch', () => {
  it('an unknown service name is UNKNOWN_TOOL', () => {
    expect(errOf(callService('load_skill', { name: 'x' }, ctxFor(world())))).toEqual({ code: 'UNKNOWN_TOOL' });
    expect(errOf(callService('get_products', {}, ctxFor(world())))).toEqual({ code: 'UNKNOWN_TOOL' });
  });
});
