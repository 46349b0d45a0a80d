/** Every operation the gate serves, read from the route declarations (src/worker/routes/registry.ts). */
export { operations } from "../routes/registry";
