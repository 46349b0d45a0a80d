// The floor the gate's cold start is measured against (`npm run bench`, tools/lib/bench-startup.ts):
// a hello-world Hono Worker, built like the gate (same compatibility date and flags, minified).
import { Hono } from "hono";

const app = new Hono();
app.get("/", (c) => c.text("Hello Hono!"));

export default app;
