/** The Memory page: the facts the agent keeps, seen, searched, edited and forgotten by the user. */
export { createMemorySlice, memoryInWords, type MemorySlice } from './slice';
export { MemoryView } from './MemoryView';
export { Remembered, rememberedIn } from './Remembered';
