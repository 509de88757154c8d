/** The first run: connecting a model before the chat can be used. */
export { SetupGate, Welcome } from './FirstRun';
