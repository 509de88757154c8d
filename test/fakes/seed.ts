/**
 * The nine tasks of the seed talk's inbox (001; the seeds: docs/ARCHITECTURE.md, "Tests"), in the order they were
 * captured. Pure data: tests and benches share it.
 */
export const SEED_INBOX = [
  'Finish presentation for PyData Amsterdam',
  "Don't forget laptop with presentation",
  'Make demo video for Pydata Amsterdam',
  'Bake the birthday cake',
  'Migrate personal website server from python 3.10 to 3.11',
  'Setup version control for personal website',
  'Buy birthday balloons',
  'Buy milk birthday cake',
  'Buy sugar for the birthday cake',
];

/** Where the seed's agent put them: project name → indexes into SEED_INBOX. */
export const SEED_GROUPS: Record<string, number[]> = {
  'PyData Amsterdam': [0, 1, 2],
  'Birthday Celebration': [3, 6, 7, 8],
  'Personal Website': [4, 5],
};
