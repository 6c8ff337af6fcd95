/**
 * The server config key `defaults.variant` takes a preset or a VariantSpec object, checked with
 * `parseVariant` at start-up (the key path named), and is absent unless set.
 */
import { describe, expect, it } from 'vitest';
import { defaultServerConfig, parseServerConfig } from '../../server/index.js';

describe('defaults.variant', () => {
  it('is absent by default, and takes a preset or a spec, kept parsed (a VariantChoice)', () => {
    expect(defaultServerConfig().defaults).toBeUndefined();
    expect(parseServerConfig({ defaults: { variant: 'train' } })).toMatchObject({
      ok: true,
      config: { defaults: { variant: { given: 'train', preset: 'train', spec: { split: 'train' } } } },
    });
    const spec = { families: ['tools'], intensity: 0.3, split: 'train', identity_share: 0.5 };
    const r = parseServerConfig({ defaults: { variant: spec } });
    expect(r).toMatchObject({ ok: true, config: { defaults: { variant: { given: spec, spec } } } });
    expect(r.ok && Object.isFrozen(r.config.defaults?.variant)).toBe(true);
  });

  it('rejects what a reset item would be refused for, naming the key', () => {
    expect(parseServerConfig({ defaults: { variant: 'trian' } })).toEqual({
      ok: false,
      errors: ['defaults.variant: unknown variant preset "trian" (known: identity, train, eval)'],
    });
    const bad = parseServerConfig({ defaults: { variant: { families: ['tool'], intensity: 0.3, split: 'train' } } });
    expect(bad.ok === false && bad.errors[0]).toMatch(/^defaults\.variant: invalid variant spec: families\.0/);
    expect(parseServerConfig({ defaults: { variant: { families: ['tools'], intensity: 3, split: 'train' } } })).toEqual({
      ok: false,
      errors: ['defaults.variant: variant.intensity must be in [0, 1]'],
    });
    expect(parseServerConfig({ defaults: { parser: 'hermes' } })).toEqual({ ok: false, errors: ['defaults.parser: unknown key'] });
  });
});
