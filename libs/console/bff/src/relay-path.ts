/**
 * Whether a path the console relays (to the gateway's own routes, through fastify.inject) must be
 * refused before it leaves the relay. The relay holds on its own, whatever the routes behind it
 * check: a path it forwards stays under the prefix it was built with, as fastify.inject's parser
 * will read it. Refused:
 * - a backslash, raw or encoded (`\` and `%5C`): some parsers read it as `/`;
 * - an unreserved character sent percent-encoded (`%61gent`, `%2e`): a client never needs to
 *   encode letters, digits, `-`, `.`, `_` or `~`, so doing so only hides a segment from a check.
 *   Reserved characters stay allowed encoded (an order id with `/` or `:` is sent as `%2F`, `%3A`);
 * - a `.` or `..` segment.
 * Hand-written: the rule is this relay's own (which encodings a console page ever sends), which
 * no URL library states; the WHATWG parser would resolve the segments instead of refusing them.
 */
export function relayPathRefusal(url: string): string | null {
  const path = url.split('?')[0] ?? '';
  if (path.includes('\\') || /%5c/i.test(path)) return 'a backslash';
  if (/%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2[de]|5f|7e)/i.test(path)) return 'an unreserved character percent-encoded';
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return 'a dot segment';
  return null;
}
