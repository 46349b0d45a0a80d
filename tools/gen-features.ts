// `npm run gen:features`: writes src/worker/features/index.ts from the feature folders
// (tools/lib/features-index.ts). `--check` exits 1 when the committed index is stale.
import { featuresIndexCurrent, writeFeaturesIndex } from "./lib/features-index.ts";

if (process.argv.includes("--check")) {
  if (!(await featuresIndexCurrent())) {
    console.error("src/worker/features/index.ts is not what the feature folders give: run `npm run gen:features`.");
    process.exit(1);
  }
  console.log("the feature index is current");
} else {
  console.log(
    (await writeFeaturesIndex()) ? "wrote src/worker/features/index.ts" : "src/worker/features/index.ts is current",
  );
}
