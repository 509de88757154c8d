import { useEffect } from 'react';
import { useApp } from '../store/react';
import { AddForm, Loading, ProblemAlert, TaskList, ViewHead } from './common';

/** Projects on the left (with open-task counts), the chosen project's tasks on the right. */
export function ProjectsView() {
  const projects = useApp((s) => s.projects);
  const project = useApp((s) => s.project);
  const loadProjects = useApp((s) => s.loadProjects);
  const openProject = useApp((s) => s.openProject);
  const createProject = useApp((s) => s.createProject);
  const addTask = useApp((s) => s.addTask);
  const createProblem = useApp((s) => s.formProblems['projects.create']);
  const addProblem = useApp((s) => s.formProblems['project.add']);

  useEffect(() => {
    void loadProjects();
  }, [loadProjects]);

  const list = projects.value ?? [];
  // The inbox has a view of its own; here it is one project among the others only when chosen.
  const shown = list.filter((p) => !p.builtin);
  const selected = list.find((p) => p.id === project.id) ?? null;

  useEffect(() => {
    // Open the first project when none is chosen (or the chosen one is gone, e.g. undone).
    const live = projects.value?.filter((p) => !p.builtin);
    if (!live || live.some((p) => p.id === project.id)) return;
    const first = live[0]?.id ?? null;
    if (first !== project.id) void openProject(first);
  }, [projects.value, project.id, openProject]);

  return (
    <>
      <ViewHead title="Projects">{projects.value && <span className="badge">{shown.length}</span>}</ViewHead>
      <div className="split">
        <div className="picker">
          <AddForm label="New project name" button="Create" placeholder="New project" problem={createProblem} onAdd={createProject} />
          {projects.problem && <ProblemAlert problem={projects.problem} title="Could not load projects" />}
          {projects.value === null && projects.loading && <Loading what="projects" />}
          {projects.value && shown.length === 0 && <p className="empty">No projects yet. Ask Tidy to sort your inbox into projects.</p>}
          <ul aria-label="Projects">
            {shown.map((p) => (
              <li key={p.id}>
                <button type="button" className="picker-item" aria-current={p.id === project.id ? 'true' : undefined} onClick={() => void openProject(p.id)}>
                  <span className="grow">{p.name}</span>
                  <span className="count" aria-label={`${p.openTasks} open tasks`}>
                    {p.openTasks}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </div>
        <section className="detail" aria-label={selected ? `Project ${selected.name}` : 'Project'}>
          {selected ? (
            <>
              <header className="view-head">
                <h2>{selected.name}</h2>
              </header>
              <div className="view-body">
                <AddForm
                  label={`New task in ${selected.name}`}
                  button="Add"
                  placeholder={`Add a task to ${selected.name}`}
                  problem={addProblem}
                  onAdd={(text) => addTask('project.add', text, selected.id)}
                />
                {project.problem && <ProblemAlert problem={project.problem} title="Could not load the tasks" />}
                {project.value === null ? (
                  project.loading && <Loading what="tasks" />
                ) : project.value.tasks.length === 0 ? (
                  <p className="empty">No open tasks in {selected.name}.</p>
                ) : (
                  <TaskList tasks={project.value.tasks} label={`Tasks in ${selected.name}`} />
                )}
              </div>
            </>
          ) : (
            projects.value && shown.length > 0 && <p className="empty">Choose a project.</p>
          )}
        </section>
      </div>
    </>
  );
}
