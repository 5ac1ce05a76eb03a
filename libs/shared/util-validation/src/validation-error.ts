import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import type { ValidationError, ValidatorOptions } from 'class-validator';
import { JsonNumberLiteral } from './lossless-json';

/** What a request class says about its own errors: the top-level message and the issue for an unknown field. */
export interface RequestMessages {
  /** The error's `message`, e.g. "The list filters are not valid". */
  invalid?: string;
  /** The issue of a field the class does not declare. */
  unknownField?: string;
}

const DEFAULT_MESSAGES: Required<RequestMessages> = { invalid: 'The request is not valid', unknownField: 'is not a known field' };
const messagesByClass = new WeakMap<object, RequestMessages>();

/** Class decorator: the messages of this request class's VALIDATION_ERROR (inherited by subclasses). */
export function RequestMessages(messages: RequestMessages): ClassDecorator {
  return (target) => {
    messagesByClass.set(target, messages);
  };
}

function messagesOf(target: object | undefined): Required<RequestMessages> {
  for (let type = target?.constructor; type && type !== Object; type = Object.getPrototypeOf(type)) {
    const messages = messagesByClass.get(type);
    if (messages) return { ...DEFAULT_MESSAGES, ...messages };
  }
  return DEFAULT_MESSAGES;
}

/**
 * How every request class is validated, at every hop: unknown fields are refused (a typo never
 * passes silently), every problem is reported at once, and the validated object is kept.
 */
export const REQUEST_VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: true, value: true },
};

/**
 * The one exceptionFactory: class-validator's errors as the platform's VALIDATION_ERROR, with
 * every bad field named by its path (`entries[2].currency`, `reference.kind`). A missing field
 * is "is required"; an undeclared one gets the class's unknown-field issue.
 */
export function validationErrorFrom(errors: ValidationError[]): DomainError {
  const messages = messagesOf(errors[0]?.target);
  const details: ErrorDetail[] = [];
  const visit = (error: ValidationError, parentPath: string, parentIsArray: boolean) => {
    const field = parentPath === '' ? error.property : parentIsArray ? `${parentPath}[${error.property}]` : `${parentPath}.${error.property}`;
    const constraints = error.constraints ?? {};
    if (constraints['whitelistValidation']) details.push({ field, issue: messages.unknownField });
    else if (Object.keys(constraints).length > 0) {
      const missing = error.value === undefined || error.value === null;
      const issues = [...new Set(Object.values(constraints).map((message) => message.replace(new RegExp(`^${escapeRegExp(error.property)} `), '')))];
      details.push({ field, issue: missing ? 'is required' : issues.join('; ') });
    }
    for (const child of error.children ?? []) visit(child, field, Array.isArray(error.value));
  };
  for (const error of errors) visit(error, '', false);
  return new DomainError('VALIDATION_ERROR', messages.invalid, details);
}

/** Names every plain object answers without declaring them: `__proto__`, `constructor`, `toString`, … */
const OBJECT_PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Fields named like a member of Object.prototype, at any depth, as the VALIDATION_ERROR an
 * unknown field gets. class-validator's whitelist looks field names up on a plain object, where
 * `constructor` or `__proto__` find Object.prototype's members and pass as declared; no
 * request class declares such a field, so each is refused here, by name, before that lookup.
 */
export function objectPrototypeFieldsError(type: (new () => unknown) | undefined, value: unknown): DomainError | null {
  const messages = messagesOf(type?.prototype as object | undefined);
  const details: ErrorDetail[] = [];
  const visit = (item: unknown, path: string) => {
    if (Array.isArray(item)) item.forEach((element, index) => visit(element, `${path}[${index}]`));
    else if (isPlainRecord(item)) {
      for (const [key, child] of Object.entries(item)) {
        const field = path === '' ? key : `${path}.${key}`;
        if (OBJECT_PROTOTYPE_NAMES.has(key)) details.push({ field, issue: messages.unknownField });
        else visit(child, field);
      }
    }
  };
  visit(value, '');
  return details.length > 0 ? new DomainError('VALIDATION_ERROR', messages.invalid, details) : null;
}

/** A parsed body or query: an object literal, or one without Object.prototype (Fastify's query strings). Not a number literal or a Buffer. */
function isPlainRecord(item: unknown): item is Record<string, unknown> {
  return item !== null && typeof item === 'object' && !Array.isArray(item) && !(item instanceof JsonNumberLiteral) && !Buffer.isBuffer(item);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
