import { useEffect, useMemo } from 'react';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert } from '../../ui/common';
import { TaskList } from './TaskList';
import { QuickAddForm } from './QuickAdd';
import { MasterDetail } from '../../ui/MasterDetail';

/** Projects on the left (with open-task counts), the chosen project's tasks on the right. */
export function ProjectsView() {
  const projects = useApp((s) => s.projects);
  const project = useApp((s) => s.project);
  const loadProjects = useApp((s) => s.loadProjects);
  const openProject = useApp((s) => s.openProject);
  const createProject = useApp((s) => s.createProject);
  const addQuick = useApp((s) => s.addQuick);
  const reorderTask = useApp((s) => s.reorderTask);
  const createProblem = useApp((s) => s.formProblems['projects.create']);
  const archived = useApp((s) => s.archivedProjects.value);
  const loadArchived = useApp((s) => s.loadArchivedProjects);
  const renameProject = useApp((s) => s.renameProject);
  const archiveProject = useApp((s) => s.archiveProject);
  const unarchiveProject = useApp((s) => s.unarchiveProject);
  const addProblem = useApp((s) => s.formProblems['project.add']);

  useEffect(() => {
    void loadProjects();
  }, [loadProjects]);

  // The inbox has a view of its own; here it is one project among the others only when chosen.
  const items = useMemo(
    () => projects.value?.filter((p) => !p.builtin).map((p) => ({ ...p, count: { value: p.openTasks, of: 'open tasks' } })) ?? null,
    [projects.value],
  );

  return (
    <MasterDetail
      title="Projects"
      noun="project"
      items={items}
      loading={projects.loading}
      problem={projects.problem}
      empty="No projects yet. Ask Tidy to sort your inbox into projects."
      create={{ label: 'New project name', placeholder: 'New project', problem: createProblem, onAdd: createProject }}
      selectedId={project.id}
      onSelect={openProject}
      manage={{ rename: renameProject, archive: archiveProject, unarchive: unarchiveProject, archived, loadArchived }}
      detail={(selected) => ({
        body: (
          <>
            <QuickAddForm
              label={`New task in ${selected.name}`}
              button="Add"
              placeholder={`Add a task to ${selected.name}`}
              problem={addProblem}
              onAdd={(parsed) => addQuick('project.add', parsed, selected.id)}
            />
            {project.problem && <ProblemAlert problem={project.problem} title="Could not load the tasks" />}
            {project.value === null ? (
              project.loading && <Loading what="tasks" />
            ) : project.value.tasks.length === 0 ? (
              <p className="empty">No open tasks in {selected.name}.</p>
            ) : (
              <TaskList tasks={project.value.tasks} label={`Tasks in ${selected.name}`} onReorder={reorderTask} />
            )}
          </>
        ),
      })}
    />
  );
}
