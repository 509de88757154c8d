// The preload exposes the typed bridge and nothing else (issue: the typed bridge).
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('tidy', { version: 1 });
