import { callbackDestinationIssue, isAllowListEntry, parseAllowedPorts } from '@mp/contracts-callbacks';

describe('callback destination rules', () => {
  const production = { allowHttp: false, allowedPorts: parseAllowedPorts('443,8443') };

  it('allows https on 443 and 8443 only, in production', () => {
    expect(callbackDestinationIssue('https://shop.example/cb', production)).toBeNull();
    expect(callbackDestinationIssue('https://shop.example:8443/cb', production)).toBeNull();
    expect(callbackDestinationIssue('https://shop.example:22/cb', production)).toBe('port 22 is not allowed for callbacks (allowed: 443, 8443)');
    expect(callbackDestinationIssue('http://shop.example/cb', production)).toBe('must use https://');
  });

  it('takes http only with the explicit development setting, and still checks its port (80 when none is named)', () => {
    const development = { allowHttp: true, allowedPorts: parseAllowedPorts('443,8000-8100') };
    expect(callbackDestinationIssue('http://shop.example:8080/cb', development)).toBeNull();
    expect(callbackDestinationIssue('http://shop.example/cb', development)).toMatch(/^port 80 is not allowed/);
  });

  it('keeps a merchant to its allow-list: names, *. wildcards, and IP literals in a CIDR', () => {
    const allowList = ['shop.example', '*.pay.example', '203.0.113.0/24'];
    expect(callbackDestinationIssue('https://shop.example/cb', production, allowList)).toBeNull();
    expect(callbackDestinationIssue('https://SHOP.example./cb', production, allowList)).toBeNull();
    expect(callbackDestinationIssue('https://a.b.pay.example/cb', production, allowList)).toBeNull();
    expect(callbackDestinationIssue('https://203.0.113.9/cb', production, allowList)).toBeNull();
    expect(callbackDestinationIssue('https://pay.example/cb', production, allowList)).toBe("host pay.example is not on this merchant's callback allow-list");
    expect(callbackDestinationIssue('https://evilshop.example/cb', production, allowList)).toMatch(/not on this merchant's callback allow-list/);
    expect(callbackDestinationIssue('https://198.51.100.1/cb', production, allowList)).toMatch(/not on this merchant's callback allow-list/);
  });

  it('reads port lists and allow-list entries strictly', () => {
    expect(parseAllowedPorts(' 443, 1024-2048 ')).toEqual([
      [443, 443],
      [1024, 2048],
    ]);
    for (const bad of ['0', '65536', '9-3', 'https', '443;8443']) expect(() => parseAllowedPorts(bad)).toThrow(/is not a port/);
    for (const good of ['shop.example', '*.shop.example', '203.0.113.0/24', '2001:db8::/32', '198.51.100.7']) expect(isAllowListEntry(good)).toBe(true);
    for (const bad of ['Shop.Example', 'shop.*.example', 'https://shop.example', '10.0.0.0/33', '']) expect(isAllowListEntry(bad)).toBe(false);
  });
});
