import * as z from "zod";
import { PROBLEM_STATUS, type ProblemCode } from "../problem";
import { httpSchemas } from "./registry";

/** RFC 9457 problem details with toolgate's stable `code`. */
export const ProblemDetails = z
  .strictObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(PROBLEM_STATUS) as [ProblemCode, ...ProblemCode[]]),
    detail: z.string(),
    path: z.string().optional().meta({ description: "JSON path of the offending field (envelope `unknown_field`)." }),
  })
  .register(httpSchemas, { id: "ProblemDetails" });
