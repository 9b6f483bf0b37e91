-- A send_email approval is bound to the mail it sends (API.md "Personal data"): the email's id, with
-- target_revision holding the hash of its recipients, subject and body when the call paused.
ALTER TABLE "approvals" ADD COLUMN "target_email_id" TEXT;
