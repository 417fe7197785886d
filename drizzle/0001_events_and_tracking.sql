CREATE SCHEMA "tracking";
--> statement-breakpoint
CREATE TABLE "avatar"."inbox" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracking"."completions" (
	"habit_id" uuid NOT NULL,
	"window_start" date NOT NULL,
	"attended_at" text NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "completions_habit_id_window_start_pk" PRIMARY KEY("habit_id","window_start")
);
--> statement-breakpoint
CREATE TABLE "tracking"."habits" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"avatar_id" text NOT NULL,
	"owner_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"tags" jsonb NOT NULL,
	"recurrence_type" text NOT NULL,
	"day_of_week" text,
	"day_of_month" integer,
	"time_zone" text NOT NULL,
	"associated_quest_id" text,
	"first_window_start" date NOT NULL,
	"last_attended_at" text,
	"last_completed_window_start" date,
	"streak" integer NOT NULL,
	"best_streak" integer NOT NULL,
	"miss_check_from" date NOT NULL,
	"miss_check_due" date NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracking"."inbox" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracking"."missed_windows" (
	"habit_id" uuid NOT NULL,
	"window_start" date NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "missed_windows_habit_id_window_start_pk" PRIMARY KEY("habit_id","window_start")
);
--> statement-breakpoint
CREATE TABLE "tracking"."outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"version" integer NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	"published_at" timestamp with time zone,
	"claimed_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "outbox_id_unique" UNIQUE("id")
);
--> statement-breakpoint
ALTER TABLE "avatar"."outbox" ADD COLUMN "claimed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "avatar"."outbox" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "identity"."outbox" ADD COLUMN "claimed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."outbox" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "habits_avatar_idx" ON "tracking"."habits" USING btree ("avatar_id","seq");--> statement-breakpoint
CREATE INDEX "habits_miss_due_idx" ON "tracking"."habits" USING btree ("miss_check_due");--> statement-breakpoint
CREATE INDEX "outbox_published_at_seq_index" ON "tracking"."outbox" USING btree ("published_at","seq");