/** The domain: every entity's reads and its logged operations. Hosts derive their commands from OPERATION_IMPLEMENTATIONS. */
import type { AnyOperation } from './operation';
import { EVENT_OPERATIONS } from './events';
import { CALENDAR_OPERATIONS } from './calendars';
import { LABEL_OPERATIONS } from './labels';
import { LIST_OPERATIONS } from './lists';
import { MEMORY_OPERATIONS } from './memory';
import { PROJECT_OPERATIONS } from './projects';
import { SECTION_OPERATIONS } from './sections';
import { TASK_OPERATIONS } from './task-operations';

/** Every logged operation, one entry per entity module (src-shared/operations.ts declares them). */
export const OPERATION_IMPLEMENTATIONS: readonly AnyOperation[] = [...TASK_OPERATIONS, ...SECTION_OPERATIONS, ...PROJECT_OPERATIONS, ...LIST_OPERATIONS, ...EVENT_OPERATIONS, ...CALENDAR_OPERATIONS, ...MEMORY_OPERATIONS, ...LABEL_OPERATIONS];
