// Request validation: one Ajv for JSON bodies, which never coerces (a number is not a name), and
// one for query strings, headers and path parameters, which arrive as text and are coerced to
// the declared type ("true" to true; a repeated parameter to an array, and so refused where one
// value is expected). An integer in text must be plain decimal digits: Ajv alone would coerce
// with JavaScript's Number(), which also reads `1e3`, `0x10`, `0b1`, ` 7` and `1.0`.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  // The error handler reads a pattern's own explanation (x-pattern-message) from the schema.
  verbose: true,
  strict: false,
  keywords: ['x-pattern-message'],
};

function ajv(options: Options): Ajv {
  const instance = new Ajv({ ...common, ...options });
  addFormats.default(instance);
  return instance;
}

export { BIDI_CONTROL, BIDI_CONTROLS, BIDI_MESSAGE } from '../domain/text.js';

/** Plain decimal digits, with an optional minus sign: the only integers accepted in text. */
export const DECIMAL_INTEGER = /^-?[0-9]+$/;

interface TextSchema {
  properties?: Record<string, { type?: unknown }>;
}

/** The top-level properties a text schema declares as integers. */
function integerProperties(schema: TextSchema): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer' || (Array.isArray(property.type) && property.type.includes('integer')))
    .map(([name]) => name);
}

/** Refuses an integer parameter that is not written in decimal digits before Ajv coerces it. */
function decimalIntegers(validate: ValidateFunction, names: string[]): ReturnType<FastifySchemaCompiler<unknown>> {
  const check = (data: unknown) => {
    const wrong: ErrorObject[] = [];
    if (data && typeof data === 'object') {
      for (const name of names) {
        const value = (data as Record<string, unknown>)[name];
        if (typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
          wrong.push({
            instancePath: `/${name}`,
            schemaPath: `#/properties/${name}/type`,
            keyword: 'type',
            params: { type: 'integer' },
            message: 'must be an integer written in decimal digits',
          });
        }
      }
    }
    if (wrong.length > 0) {
      check.errors = wrong;
      return false;
    }
    const valid = validate(data);
    check.errors = validate.errors;
    return valid;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  return check as never;
}

/** The two Ajvs, made once per process: every app a process builds (the tests build dozens) shares them. */
let ajvs: { body: Ajv; text: Ajv } | undefined;
/** Compiled validators by request part and schema text: routes share schemas, and apps share routes. */
const compiled = new Map<string, ReturnType<FastifySchemaCompiler<unknown>>>();

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  ajvs ??= { body: ajv({ coerceTypes: false }), text: ajv({ coerceTypes: 'array' }) };
  const { body, text } = ajvs;
  return ({ schema, httpPart }) => {
    const key = `${httpPart === 'body' ? 'body' : 'text'}\u0000${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (!validate) {
      if (httpPart === 'body') validate = body.compile(schema as object);
      else {
        const plain = text.compile(schema as object);
        const integers = integerProperties(schema as TextSchema);
        validate = integers.length === 0 ? plain : decimalIntegers(plain, integers);
      }
      compiled.set(key, validate);
    }
    return validate;
  };
}
