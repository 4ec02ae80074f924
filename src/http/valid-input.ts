import type * as z from "zod";
import { HttpError } from "../protocol/http/error.ts";
import { describeIssues, issueDetails } from "../protocol/issues.ts";

/**
 * A path parameter set, a query or an object built from a body, parsed by `schema`; a 400 whose `details` name each
 * bad field otherwise. (JSON bodies go through `jsonBody`, which also bounds their size.)
 */
export function validInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  where: "path" | "query" | "body",
): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new HttpError(400, {
    code: "invalid_request",
    message: `Invalid ${where}: ${describeIssues(parsed.error, 10)}`,
    details: issueDetails(parsed.error),
  });
}
