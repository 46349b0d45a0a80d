import { Hono } from "hono";
import type { Env } from "./env";

export { ConsumerObject } from "./consumer";

const app = new Hono<{ Bindings: Env }>();

app.get("/healthz", (c) => c.json({ ok: true }));

export default app;
