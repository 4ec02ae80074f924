import type * as z from "zod";

/** One bad field of a validated input: where it is, and what is wrong with it. */
export interface IssueDetail {
  field: string;
  problem: string;
}

/** The problems zod found, one per field, for an error body's `details`. */
export function issueDetails(error: z.ZodError, limit = 20): IssueDetail[] {
  return error.issues
    .slice(0, limit)
    .map((issue) => ({ field: issue.path.length > 0 ? issue.path.join(".") : "(body)", problem: issue.message }));
}

/** The same problems as one line of text, for a message to a person or a model. */
export function describeIssues(error: z.ZodError, limit = 20): string {
  return issueDetails(error, limit)
    .map((detail) => `${detail.field}: ${detail.problem}`)
    .join("; ");
}
