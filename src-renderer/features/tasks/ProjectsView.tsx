import { useEffect, useId, useMemo, useState } from 'react';
import type { Section, Task } from '../../../src-shared/domain';
import type { Problem } from '../../lib/problem';
import { useApp } from '../../store/react';
import { AddForm, Loading, ProblemAlert } from '../../ui/common';
import { actionOf, TASK_EDITOR_KEYS } from '../../ui/keymaps';
import { TaskList } from './TaskList';
import { TaskAddForm } from './QuickAdd';
import { MasterDetail } from '../../ui/MasterDetail';
import { FieldError } from '../../ui/FieldError';

/** Projects on the left (with open-task counts), the chosen project's tasks on the right, grouped by section. */
export function ProjectsView() {
  const projects = useApp((s) => s.projects);
  const project = useApp((s) => s.project);
  const loadProjects = useApp((s) => s.loadProjects);
  const openProject = useApp((s) => s.openProject);
  const createProject = useApp((s) => s.createProject);
  const reorderTask = useApp((s) => s.reorderTask);
  const createProblem = useApp((s) => s.formProblems['projects.create']);
  const archived = useApp((s) => s.archivedProjects.value);
  const loadArchived = useApp((s) => s.loadArchivedProjects);
  const renameProject = useApp((s) => s.renameProject);
  const archiveProject = useApp((s) => s.archiveProject);
  const unarchiveProject = useApp((s) => s.unarchiveProject);
  const allSections = useApp((s) => s.sections);
  const loadSections = useApp((s) => s.loadSections);
  const createSection = useApp((s) => s.createSection);
  const [sectionProblem, setSectionProblem] = useState<Problem | undefined>(undefined);
  useEffect(() => {
    if (project.id) void loadSections(project.id);
  }, [project.id, loadSections]);

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
      manage={{ rename: renameProject, archive: archiveProject, unarchive: unarchiveProject, archived, loadArchived, history: 'projects' }}
      detail={(selected) => ({
        body: (
          <>
            <TaskAddForm label={`New task in ${selected.name}`} placeholder={`Add a task to ${selected.name}`} box="project.add" defaults={{ project: selected.id }} />
            {project.problem && <ProblemAlert problem={project.problem} title="Could not load the tasks" />}
            {project.value === null ? (
              project.loading && <Loading what="tasks" />
            ) : (
              <Sectioned project={selected.name} tasks={project.value.tasks} sections={allSections[selected.id] ?? []} onReorder={reorderTask} />
            )}
            <AddForm
              label={`New section in ${selected.name}`}
              button="Add section"
              placeholder="New section"
              problem={sectionProblem}
              onAdd={async (name) => {
                const p = await createSection(selected.id, name);
                setSectionProblem(p ?? undefined);
                return p === null;
              }}
            />
          </>
        ),
      })}
    />
  );
}

/** A project's tasks: those in no section first, then each section (in its order) with its own, under its heading. */
function Sectioned({ project, tasks, sections, onReorder }: { project: string; tasks: Task[]; sections: Section[]; onReorder: (task: Task, before: Task | null) => unknown }) {
  const known = new Set(sections.map((s) => s.id));
  // A task of a section not (yet) loaded stays visible among the unsectioned ones.
  const loose = tasks.filter((t) => !t.sectionId || !known.has(t.sectionId));
  return (
    <>
      {loose.length > 0 ? (
        <TaskList tasks={loose} label={`Tasks in ${project}`} onReorder={onReorder} />
      ) : (
        sections.length === 0 && <p className="empty">No open tasks in {project}.</p>
      )}
      {sections.map((s, i) => (
        // Move up goes before the one above; Move down before the one after next (last when none).
        <SectionBlock
          key={s.id}
          section={s}
          tasks={tasks.filter((t) => t.sectionId === s.id)}
          onReorder={onReorder}
          up={i > 0 ? sections[i - 1]!.id : undefined}
          down={i < sections.length - 1 ? (sections[i + 2]?.id ?? null) : undefined}
        />
      ))}
    </>
  );
}

/** One section: its heading (rename, move up or down, archive) and its tasks. `up`/`down`: the section to go before (null: last), none at an end. */
function SectionBlock(p: { section: Section; tasks: Task[]; onReorder: (task: Task, before: Task | null) => unknown; up?: string | undefined; down?: string | null | undefined }) {
  const { section, tasks, onReorder } = p;
  const renameSection = useApp((s) => s.renameSection);
  const moveSection = useApp((s) => s.moveSection);
  const archiveSection = useApp((s) => s.archiveSection);
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(section.name);
  const [problem, setProblem] = useState<Problem | null>(null);
  const id = useId();
  return (
    <section className="task-section" aria-labelledby={`${id}-head`}>
      {renaming ? (
        <form
          className="rename-form"
          aria-label={`Rename section ${section.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            if (!name.trim()) return;
            void renameSection(section.id, name.trim()).then((p) => {
              setProblem(p);
              if (!p) setRenaming(false);
            });
          }}
          onKeyDown={(e) => {
            if (actionOf(TASK_EDITOR_KEYS, e.key) !== 'cancel') return;
            e.stopPropagation();
            setRenaming(false);
          }}
        >
          <h2 id={`${id}-head`} className="visually-hidden">
            {section.name}
          </h2>
          <input className="input" aria-label={`New name of the section ${section.name}`} value={name} autoFocus onChange={(e) => setName(e.target.value)} aria-invalid={problem ? true : undefined} />
          <button type="submit" className="btn primary small" disabled={!name.trim()}>
            Save
          </button>
          <button type="button" className="btn small" onClick={() => setRenaming(false)}>
            Cancel
          </button>
          <FieldError problem={problem} />
        </form>
      ) : (
        <div className="section-head">
          <h2 id={`${id}-head`} className="group-head">
            {section.name} <span className="count">{tasks.length}</span>
          </h2>
          <span className="head-actions">
            <button
              type="button"
              className="btn ghost small"
              aria-label={`Rename section ${section.name}`}
              onClick={() => {
                setName(section.name);
                setProblem(null);
                setRenaming(true);
              }}
            >
              Rename
            </button>
            <button type="button" className="btn ghost small" aria-label={`Move section ${section.name} up`} disabled={p.up === undefined} onClick={() => p.up !== undefined && void moveSection(section, p.up, 'up')}>
              ↑<span className="visually-hidden"> Move up</span>
            </button>
            <button type="button" className="btn ghost small" aria-label={`Move section ${section.name} down`} disabled={p.down === undefined} onClick={() => p.down !== undefined && void moveSection(section, p.down, 'down')}>
              ↓<span className="visually-hidden"> Move down</span>
            </button>
            <button type="button" className="btn ghost small" aria-label={`Archive section ${section.name}`} onClick={() => void archiveSection(section)}>
              Archive
            </button>
          </span>
        </div>
      )}
      {tasks.length > 0 ? <TaskList tasks={tasks} label={`Tasks in section ${section.name}`} onReorder={onReorder} /> : <p className="empty small">No open tasks in this section.</p>}
    </section>
  );
}
