// The app's path through the API, typed: log a set, then ask the coach and read its stream.
// Run against the local stack: node dist/example.js http://127.0.0.1:9000 demo
import { CoachClient } from "./client.js";

async function main(baseUrl: string, devUser: string): Promise<void> {
  const coach = new CoachClient({ baseUrl, devUser });
  const logged = await coach.command("done");
  console.log(`command: ${logged.text}`);
  const active = await coach.activeWorkout();
  console.log(`active workout: ${active.workout?.name ?? "none"}`);
  const seen: string[] = [];
  for await (const ev of coach.stream("next")) {
    seen.push(ev.type);
    switch (ev.type) {
      case "message":
        console.log(`coach: ${ev.text}`);
        break;
      case "artifact":
        console.log(`proposal ${ev.artifact_id}: confirm with content_hash ${ev.content_hash}`);
        break;
      case "error":
        console.log(`error ${ev.code}: ${ev.message}`);
        break;
      case "done":
        console.log(`done (${ev.lane}, ${ev.latency_ms} ms)`);
        break;
    }
  }
  if (seen[0] !== "route" || seen[seen.length - 1] !== "done") {
    throw new Error(`stream events ${seen.join(", ")}: want route first and done last`);
  }
}

const [baseUrl = "http://127.0.0.1:9000", devUser = "demo"] = process.argv.slice(2);
main(baseUrl, devUser).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
