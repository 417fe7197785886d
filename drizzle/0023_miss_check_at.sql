ALTER TABLE "tracking"."habits" ADD COLUMN "miss_check_at" timestamp with time zone;--> statement-breakpoint
-- Each habit's next window to judge ends on the local date miss_check_due, at the avatar's day start in the habit's zone.
-- No zone is more than 14 hours ahead of UTC and a day start only delays the end, so that date's midnight less 14 hours
-- (UTC) is never after the true end. Written early, an instant makes the job claim the habit once before its window
-- ends, see that it has not, and write the exact instant, without judging; no zone name is read here.
UPDATE "tracking"."habits" SET "miss_check_at" = ("miss_check_due"::timestamp - interval '14 hours') AT TIME ZONE 'UTC';--> statement-breakpoint
ALTER TABLE "tracking"."habits" ALTER COLUMN "miss_check_at" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "habits_miss_check_at_idx" ON "tracking"."habits" USING btree ("miss_check_at");--> statement-breakpoint
DROP INDEX "tracking"."habits_miss_due_idx";--> statement-breakpoint
ALTER TABLE "tracking"."habits" DROP COLUMN "miss_check_due";
