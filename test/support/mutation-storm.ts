// A child process for the durability test: makes logged changes as fast as it can until it is killed.
import { addTask, completeTask, createProject, moveTask, newUserRequest, openDatabase } from '../../src-main/core';

const db = openDatabase(process.argv[2]!);
// The loop below never yields, so no exit event reaches it: it ends itself once its parent is gone (a
// test that timed out or was killed), instead of writing on into a deleted folder for hours.
const parent = process.ppid;
const projects = ['Home', 'Work', 'Garden'].map((name) => {
  const r = createProject(db, newUserRequest(db), { name: `${name} ${process.pid}` });
  if (!r.ok) throw new Error(r.error);
  return r.value.id;
});
for (let i = 0; ; i++) {
  const t = addTask(db, newUserRequest(db), { content: `task ${i} of ${process.pid}` });
  if (!t.ok) throw new Error(t.error);
  if (i % 3 === 0) moveTask(db, newUserRequest(db), { task: t.value.id, project: projects[i % projects.length]! });
  if (i % 5 === 0) completeTask(db, newUserRequest(db), { task: t.value.id });
  if (i % 100 === 0) {
    if (process.ppid !== parent) process.exit(0);
    process.stdout.write(`${i}\n`);
  }
}
