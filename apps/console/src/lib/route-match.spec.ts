import { matchRoute, pathFor, stripBase } from './route-match';

describe('matchRoute', () => {
  it('matches literal segments and decodes parameters', () => {
    expect(matchRoute('/merchant/orders/:orderId', '/merchant/orders/A%2F1')).toEqual({ orderId: 'A/1' });
    expect(matchRoute('/merchant/orders', '/merchant/orders/')).toEqual({});
    expect(matchRoute('/merchant/orders/:orderId', '/merchant/orders')).toBeNull();
    expect(matchRoute('/operator/disputes/:merchantId/:disputeId', '/operator/disputes/mch_1/dsp_2')).toEqual({ merchantId: 'mch_1', disputeId: 'dsp_2' });
    expect(matchRoute('/agent/queue', '/merchant/queue')).toBeNull();
  });

  it('does not throw on a malformed escape', () => {
    expect(matchRoute('/merchant/orders/:orderId', '/merchant/orders/%E0%A4%A')).toBeNull();
  });
});

describe('pathFor and stripBase', () => {
  it('builds paths with each parameter encoded, "/" included', () => {
    expect(pathFor('/merchant/orders/:orderId', { orderId: 'A/1 b' })).toBe('/merchant/orders/A%2F1%20b');
  });

  it('removes the app base, and keeps "/" for the root', () => {
    expect(stripBase('/console/merchant/orders', '/console/')).toBe('/merchant/orders');
    expect(stripBase('/console', '/console/')).toBe('/');
    expect(stripBase('/elsewhere', '/console/')).toBe('/elsewhere');
  });
});
