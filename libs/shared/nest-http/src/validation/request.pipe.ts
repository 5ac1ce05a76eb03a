import { Injectable, ValidationPipe, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import {
  objectPrototypeFieldsError,
  parseJsonObjectBody,
  REQUEST_VALIDATOR_OPTIONS,
  requireJsonObject,
  validationErrorFrom,
  withPlainNumbers,
} from '@mp/shared-util-validation';
import { DomainError, type ErrorCode } from '@mp/shared-util-errors';

/** How a request class is read: set on the class with `@RequestOptions`, or for every class a pipe reads. */
export interface RequestShapeOptions {
  /** An empty body counts as `{}` (routes whose body is optional). */
  emptyBodyIsEmptyObject?: boolean;
  /**
   * `literal` (default): JSON numbers stay exact literals (amounts); `plain`: they become
   * JavaScript numbers (small integers such as basis points, passed on as JSON).
   */
  numbers?: 'literal' | 'plain';
}

export interface RequestPipeOptions extends RequestShapeOptions {
  /** class-validator groups to apply besides the ungrouped rules (e.g. a configured policy). */
  groups?: string[];
}

const shapeByClass = new WeakMap<object, RequestShapeOptions>();

/**
 * A request class's own reading options, so one pipe (the gateway's global one) serves every
 * route: how a request is read depends on what it is (an optional body, a catalog of small
 * numbers), which its class says, not on where a pipe was attached.
 */
export function RequestOptions(options: RequestShapeOptions): ClassDecorator {
  return (target) => {
    shapeByClass.set(target, options);
  };
}

function shapeOf(type: unknown): RequestShapeOptions {
  for (let candidate = type; typeof candidate === 'function' && candidate !== Object; candidate = Object.getPrototypeOf(candidate)) {
    const shape = shapeByClass.get(candidate);
    if (shape) return shape;
  }
  return {};
}

/**
 * The one way a request body, query or message payload becomes a typed request object:
 * - a raw body (a Buffer: the gateway keeps the exact bytes for signatures) is parsed
 *   losslessly: numbers keep their literal text, a key given twice with different values is
 *   refused, the top level must be an object;
 * - an already parsed value (internal APIs, query strings, Kafka payloads) must be an object;
 * - a field named like a member of Object.prototype (`__proto__`, `constructor`) is refused as
 *   unknown before anything looks it up;
 * - class-transformer turns it into the request class, class-validator checks it with unknown
 *   fields forbidden, and every problem becomes one VALIDATION_ERROR naming each bad field.
 * The request class comes from the parameter's type, or from `expectedType` outside HTTP; its
 * `@RequestOptions` win over the pipe's. A value that already is an instance of the class was
 * read by a pipe before (a global one) and passes unchanged.
 */
@Injectable()
export class RequestPipe extends ValidationPipe {
  private readonly emptyBodyIsEmptyObject: boolean;
  private readonly plainNumbers: boolean;

  constructor(options: RequestPipeOptions = {}) {
    super({
      ...REQUEST_VALIDATOR_OPTIONS,
      transform: true,
      // Validate and transform only: no implicit conversion, so "12345" is never an order id typed as a number.
      transformOptions: { enableImplicitConversion: false },
      groups: options.groups,
      always: true,
      validateCustomDecorators: true,
      exceptionFactory: validationErrorFrom,
    });
    this.emptyBodyIsEmptyObject = options.emptyBodyIsEmptyObject ?? false;
    this.plainNumbers = options.numbers === 'plain';
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (typeof metadata.metatype === 'function' && value instanceof metadata.metatype) return value;
    const shape = shapeOf(metadata.metatype);
    const body = this.toObject(value, shape.emptyBodyIsEmptyObject ?? this.emptyBodyIsEmptyObject);
    const prototypeFields = objectPrototypeFieldsError(metadata.metatype as (new () => unknown) | undefined, body);
    if (prototypeFields) throw prototypeFields;
    const plainNumbers = shape.numbers ? shape.numbers === 'plain' : this.plainNumbers;
    return super.transform(plainNumbers ? withPlainNumbers(body) : body, metadata);
  }

  /** Validates a value outside HTTP (e.g. a Kafka payload) as `type`; throws the same VALIDATION_ERROR. */
  async validateAs<T>(type: new () => T, value: unknown): Promise<T> {
    return (await this.transform(value, { type: 'body', metatype: type })) as T;
  }

  private toObject(value: unknown, emptyBodyIsEmptyObject: boolean): Record<string, unknown> {
    const isEmpty = value === undefined || value === null || (Buffer.isBuffer(value) && value.length === 0);
    if (isEmpty && emptyBodyIsEmptyObject) return {};
    if (Buffer.isBuffer(value) || value === undefined) return parseJsonObjectBody(value as Buffer | undefined);
    return requireJsonObject(value);
  }
}

/**
 * An id in a request path. One that does not match its pattern can name nothing, so it is
 * answered like an unknown one (e.g. 404 ORDER_NOT_FOUND) and never reaches a database.
 */
export class PathIdPipe implements PipeTransform<unknown, string> {
  constructor(
    private readonly pattern: RegExp,
    private readonly code: ErrorCode,
    private readonly describe: (id: string) => string,
  ) {}

  transform(value: unknown): string {
    if (typeof value === 'string' && this.pattern.test(value)) return value;
    throw new DomainError(this.code, this.describe(String(value).slice(0, 100)));
  }
}
