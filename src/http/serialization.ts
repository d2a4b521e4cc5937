// Response serializers, compiled once per schema. Fastify compiles a serializer (fast-json-stringify,
// which builds an Ajv of its own each time) for every status code of every route, and most routes
// share their error responses: the same problem document's schema was compiled hundreds of times
// at start, and again by every app a test process builds. A serializer depends on nothing but its
// schema, the shared schemas and the options, so one compiled for the same texts is the same
// function: it is taken from this process's cache.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Compile = ReturnType<Factory>;
type Serializer = ReturnType<Compile>;

const compiled = new Map<string, Serializer>();
/** The shared schemas and options an app compiles with, by their text, as a short prefix of the key. */
const contexts = new Map<string, number>();

/** Fastify's default serializer compiler (compilersFactory.buildSerializer), with the cache. */
export function cachedSerializers(): Factory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const text = JSON.stringify([externalSchemas ?? null, options ?? null]);
    let context = contexts.get(text);
    if (context === undefined) contexts.set(text, (context = contexts.size));
    return (route) => {
      const key = `${context}\u0000${JSON.stringify(route.schema)}`;
      let serializer = compiled.get(key);
      if (!serializer) compiled.set(key, (serializer = compile(route)));
      return serializer;
    };
  };
}
