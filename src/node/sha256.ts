// SHA-256 on node:crypto, handed to the core where it hashes a split's documents and manifest: the same digests
// as src/util/primitives/sha256.ts's plain TypeScript (tests/node/sha256.test.ts), and faster. Not a
// second implementation of anything: OpenSSL's, behind the core's Sha256Hasher seam.
import { createHash, hash } from "node:crypto";
import type { Sha256Hasher } from "../util/primitives/sha256.ts";

/**
 * crypto.hash (one call, no Hash object: several times cheaper than createHash for a short string, see
 * docs/benchmarks.md) where this Node has it (20.12 and later); createHash otherwise.
 */
const oneShot: (data: Uint8Array | string) => string =
  typeof hash === "function" ? (data) => hash("sha256", data, "hex") : (data) => createHash("sha256").update(data).digest("hex");

export const nodeSha256: Sha256Hasher = {
  hex: oneShot,
  create: () => {
    const h = createHash("sha256");
    return {
      update(data) {
        h.update(data);
        return this;
      },
      digest: () => h.digest("hex"),
    };
  },
};
