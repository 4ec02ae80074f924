import type * as z from "zod";
import { describeIssues, issueDetails } from "../protocol/issues.ts";
import { HttpError } from "./error.ts";

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
  throw new HttpError(
    400,
    "invalid_request",
    `Invalid ${where}: ${describeIssues(parsed.error, 10)}`,
    issueDetails(parsed.error),
  );
}
