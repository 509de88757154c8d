// Types of scripts/build-stamp.mjs, for the tests.
export declare const INPUT_DIRS: string[];
export declare const INPUT_FILES: string[];
export declare const STAMP: string;
export declare const OUTPUTS: string[];
export declare function fingerprint(root: string): string;
export declare function needsBuild(root: string, options?: { rebuild?: boolean }): string | null;
export declare function writeStamp(root: string, inputs?: string): void;
