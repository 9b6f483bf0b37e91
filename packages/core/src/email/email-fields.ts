import { z } from "zod";

/** Recipients of one mail, `to` and `cc` each: enough for a team, small enough to stop a mass mailing. */
export const MAX_RECIPIENTS = 50;
export const MAX_SUBJECT_LENGTH = 998;
export const MAX_BODY_LENGTH = 200_000;

const address = z.email("expected an email address such as someone@example.com").max(320);

/** An array of addresses, or a single string taken as one address (API.md "Personal data"). */
export const emailAddressList = z
  .union([address.transform((value) => [value]), z.array(address).max(MAX_RECIPIENTS)])
  .describe("Email addresses (an array, or one address as a string).");

/** One line: a header must not carry a line break (header injection). */
export const emailSubject = z
  .string()
  .max(MAX_SUBJECT_LENGTH)
  .regex(/^[^\r\n]*$/, "the subject must be one line");

export const emailBody = z.string().max(MAX_BODY_LENGTH);
