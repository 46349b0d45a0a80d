/**
 * The toolgate Worker: the Hono app and the per-consumer Durable Object.
 * @module
 */
import { app } from "./app";

export { ConsumerObject } from "./kernel/consumer-object";
export { DirectoryObject } from "./features/directory/directory-object";

export default app;
