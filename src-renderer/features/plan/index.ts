/** Planning (issue 31) in the window: the editable plan card, on plan_tasks' approval and Today's "Plan my day". */
export { PlanCard } from './PlanCard';
export { PlanApprovalForm } from './PlanApprovalForm';
export { PlanMyDay } from './PlanMyDay';
export { daySpan, planEdits, rowsFromPlan, type PlanRow, type PlanEdits } from './model';
