/**
 * Goal: what the merchant API's description allows for the fields it shares, the server takes:
 * a client generated from openapi.json sends requests that pass validation. Method: fast-check
 * generates strings from each schema's own pattern (as a client or fuzzer reads it) and each must
 * pass the server's rule for that field; a few hand-picked strings the server refuses must not
 * match the pattern.
 */
import fc from 'fast-check';
import { callbackDestinationIssue, DEFAULT_CALLBACK_ALLOWED_PORTS } from '@mp/contracts-callbacks';
import { IsIsoDateTime, IsPlainText, PLAIN_TEXT_PATTERN } from '@mp/shared-util-validation';
import { validateSync } from 'class-validator';
import { CALLBACK_URL_SCHEMA, CREATION_PERIOD_SCHEMA } from './request-schemas';

const DEFAULT_RULES = { allowHttp: false, allowedPorts: DEFAULT_CALLBACK_ALLOWED_PORTS.split(',').map((port) => [Number(port), Number(port)] as const) };

class PlainTextField {
  @IsPlainText(500)
  value!: string;
}

class IsoDateField {
  @IsIsoDateTime()
  value!: string;
}

function passes(type: new () => { value: string }, value: string): boolean {
  return validateSync(Object.assign(new type(), { value })).length === 0;
}

describe('the request field schemas of the merchant API description (request-schemas.ts)', () => {
  it('allows only callback URLs the destination policy takes with its default rules', () => {
    const pattern = new RegExp(CALLBACK_URL_SCHEMA.pattern);
    fc.assert(
      fc.property(fc.stringMatching(pattern), (url) => {
        fc.pre(url.length <= CALLBACK_URL_SCHEMA.maxLength);
        expect([url, callbackDestinationIssue(url, DEFAULT_RULES)]).toEqual([url, null]);
      }),
      { numRuns: 2000 },
    );
    for (const refused of [
      'http://shop.example/callbacks',
      'https://shop.example:8080/callbacks',
      'https://10.0.0.1/x',
      'shop.example/callbacks',
      'https://shop .example/',
    ]) {
      expect([refused, pattern.test(refused)]).toEqual([refused, false]);
    }
    expect(pattern.test(CALLBACK_URL_SCHEMA.example)).toBe(true);
  });

  it('allows only creation-period dates IsIsoDateTime takes', () => {
    const pattern = new RegExp(CREATION_PERIOD_SCHEMA.pattern);
    fc.assert(
      fc.property(fc.stringMatching(pattern), (date) => expect([date, passes(IsoDateField, date)]).toEqual([date, true])),
      { numRuns: 2000 },
    );
    for (const refused of ['2026-13-01', '2026-01-01T25:00Z', '2026-01-01 00:00:00Z', '31.01.2026'])
      expect([refused, pattern.test(refused)]).toEqual([refused, false]);
  });

  it('allows only plain text IsPlainText takes (not blank, no control characters but tab and line breaks)', () => {
    fc.assert(
      fc.property(fc.stringMatching(PLAIN_TEXT_PATTERN), (text) => {
        fc.pre(text.length <= 500);
        expect([text, passes(PlainTextField, text)]).toEqual([text, true]);
      }),
      { numRuns: 2000 },
    );
    for (const refused of ['', '   ', '\n\t', 'a\u0000b', 'bell\u0007']) expect([refused, PLAIN_TEXT_PATTERN.test(refused)]).toEqual([refused, false]);
  });
});
