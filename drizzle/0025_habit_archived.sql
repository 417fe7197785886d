DROP INDEX "tracking"."habits_miss_check_at_idx";--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "archived" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "archived_spans" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "habits_miss_check_at_idx" ON "tracking"."habits" USING btree ("miss_check_at") WHERE not "tracking"."habits"."archived";