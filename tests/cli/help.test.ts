// Every option of every command has a description in --help: the commands' builders are run through yargs in
// process (no engine loads: --help imports none) and each option line of the rendered help is checked.
import yargs from "yargs";
import type { CommandModule } from "yargs";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/program.ts";

/** Options whose description states a default in words and which also carry a yargs [default: …]: two defaults, which may disagree. */
const twoDefaults = (options: string[]) =>
  options.filter((l) => /\(default[: ]/.test(l.replace(/\[[^\]]*\]/g, "")) && /\[default: /.test(l) && !/TINYLAB_BACKEND/.test(l));

/** The --help text of one command, as `tinylab <command> --help` prints it (wide, so no line wraps). */
async function helpOf(c: CommandModule): Promise<string> {
  let text = "";
  await yargs([])
    .scriptName("tinylab")
    .command(c)
    .help()
    .wrap(400)
    .exitProcess(false)
    .parseAsync([String(c.command).split(" ")[0], "--help"], {}, (_err, _argv, output) => {
      text = output;
    });
  return text;
}

/** Option lines of a help text, and those with nothing but their type and default after the name. */
function undescribed(help: string): { options: string[]; bare: string[] } {
  const options = help.split("\n").filter((l) => /^\s+(-\w, )?--[\w-]+/.test(l));
  // "  --name  description  [type] [default: …]": something other than the type and default after the name
  const bare = options.filter(
    (l) =>
      l
        .replace(/^\s+(-\w, )?--[\w-]+/, "")
        .replace(/\s*\[[^\]]*\]/g, "")
        .trim() === "",
  );
  const squeeze = (l: string) => l.trim().replace(/\s{2,}/g, "  ");
  return { options: options.map(squeeze), bare: bare.map(squeeze) };
}

describe("--help of every command", () => {
  for (const c of COMMANDS) {
    const name = String(c.command).split(" ")[0];
    it(`${name}: every option has a description`, async () => {
      const { options, bare } = undescribed(await helpOf(c));
      expect(options.length).toBeGreaterThan(2); // --help, --version and the command's own
      expect(bare, `tinylab ${name} --help`).toEqual([]);
    });
    it(`${name}: no option states a default in words beside a different [default]`, async () => {
      expect(twoDefaults(undescribed(await helpOf(c)).options), `tinylab ${name} --help`).toEqual([]);
    });
  }

  it("the two-defaults check finds one (control: the brown --min-lr line as it was)", () => {
    expect(
      twoDefaults([
        "--min-lr  floor of the cosine decay (default: --lr)  [number] [default: 0.0003]",
        "--lr  peak  [number] [default: 0.003]",
      ]),
    ).toHaveLength(1);
  });

  it("the check finds an option left without a description (control)", async () => {
    const bareCommand: CommandModule = {
      command: "probe",
      describe: "a control",
      builder: (y) => y.option("bare", { type: "number", default: 3 }).option("told", { type: "number", describe: "has one" }),
      handler: () => {},
    };
    expect(undescribed(await helpOf(bareCommand)).bare).toEqual(["--bare  [number] [default: 3]"]);
  });
});
