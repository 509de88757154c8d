/** Search over tasks, projects, lists and conversations. */
export { SearchView, SEARCH_BOX } from './SearchView';
