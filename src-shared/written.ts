/**
 * A name as the user would write it. A model sometimes names things like identifiers
 * ("birthday_celebration"); those read as words ("Birthday celebration"). Anything else is kept as
 * given: hyphens ("e-mail", "to-do"), capitals ("PyData"), spaces.
 */
export function asWritten(name: string): string {
  if (!/^[\p{Ll}\d]+(?:_[\p{Ll}\d]+)+$/u.test(name)) return name;
  const words = name.replace(/_+/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
