/**
 * The plan drawn on a small timeline: one axis of hours per day (marked in the locale: "9 AM", "09:00"), each block where the card's row puts it
 * (edits show at once), in the plan's style (dashed; pinned solid; late marked). The drawing is one image
 * with the whole plan in words as its name; the list of rows beside it is the same plan, to edit.
 */
import type { CSSProperties } from 'react';
import { timelineOf, type PlanRow } from './model';

export function PlanTimeline({ rows }: { rows: readonly PlanRow[] }) {
  const t = timelineOf(rows);
  if (t.days.length === 0) return null;
  return (
    <div className="plan-timeline" role="img" aria-label={t.label}>
      {t.days.map((d) => (
        <div key={d.day} className="plan-tl-day">
          <span className="plan-tl-dayname">{d.label}</span>
          <div className="plan-tl-body">
            <div className="plan-tl-track">
              {d.ticks.map((h) => (
                <span key={h} className="plan-tl-grid" style={{ left: `${((h - d.fromH) / (d.toH - d.fromH)) * 100}%` }} />
              ))}
              {d.blocks.map((b) => (
                <span
                  key={b.key}
                  className={`plan-tl-block${b.pinned ? ' pinned' : ''}${b.late ? ' late' : ''}`}
                  style={{ left: `${b.left}%`, width: `${b.width}%` } as CSSProperties}
                  title={`${b.task} ${b.time}`}
                >
                  {b.task}
                </span>
              ))}
            </div>
            <div className="plan-tl-axis">
              {d.ticks.map((h, i) => (
                <span key={h} style={{ left: `${((h - d.fromH) / (d.toH - d.fromH)) * 100}%` }}>
                  {d.marks[i]}
                </span>
              ))}
            </div>
          </div>
        </div>
      ))}
    </div>
  );
}
