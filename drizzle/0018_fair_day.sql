CREATE TABLE "tracking"."avatar_settings" (
	"avatar_id" text PRIMARY KEY NOT NULL,
	"history" jsonb NOT NULL,
	"version" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tracking"."habits" ALTER COLUMN "time_zone" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "times_per_week" integer;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "every_n_days" integer;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "recurrence_anchor" date;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "rest_days" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "previous_rest_days" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "rest_days_from" date;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "frozen_windows" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "tracking"."missed_windows" ADD COLUMN "outcome" text DEFAULT 'MISSED' NOT NULL;--> statement-breakpoint
-- Habits made without a zone were given UTC, the avatar's default: from now on they follow their avatar's zone.
UPDATE "tracking"."habits" SET "time_zone" = NULL WHERE "time_zone" = 'UTC';
