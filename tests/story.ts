// The short story the text-training tests read: twelve paragraphs of 30–58 words, blank-line separated, so a seeded
// 10% / 10% split holds one or more paragraphs out of each split; and the tiny model shape they train it with.

const WORDS = "the river ran past the mill where an old miller kept his grain and counted every sack by lamplight before the frost".split(
  " ",
);

/** Paragraph i of the story (from 0). */
export const storyParagraph = (i: number): string =>
  Array.from({ length: 30 + (i % 5) * 7 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(" ") + ".";

/** The whole story as a text file holds it. */
export const STORY = Array.from({ length: 12 }, (_, i) => storyParagraph(i)).join("\n\n") + "\n";

/** Small and fast: the text recipe's defaults are for a real text. */
// prettier-ignore
export const STORY_SHAPE = ["--layers", "1", "--d-model", "16", "--heads", "2", "--d-ff", "32", "--context", "32", "--batch-rows", "4", "--log-every", "1000"];
