/**
 * The agent's wait for an approval's decision, as a client makes it: each request long-polls
 * for at most the gate's bound (`?wait=30`), and the agent asks again while the approval is still
 * pending, three times at most (a loaded machine can take longer than one wait to decide it).
 */
export async function untilDecided(ask: () => Promise<Record<string, any>>): Promise<Record<string, any>> {
  let status = await ask();
  for (let asked = 1; asked < 3 && status["state"] === "pending"; asked++) status = await ask();
  return status;
}
