/** Every operation the gate serves, read from the route declarations (src/worker/http/registry.ts). */
export { operations } from "../registry";
