/**
 * The toolgate Worker: the Hono app and the per-consumer Durable Object.
 * @module
 */
import { app } from "./app";

export { ConsumerObject } from "./object/consumer-object";
export { DirectoryObject } from "./directory/directory-object";

export default app;
