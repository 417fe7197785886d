CREATE TABLE "tracking"."reminders_sent" (
	"habit_id" uuid NOT NULL,
	"window_start" date NOT NULL,
	"window_end" date NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	CONSTRAINT "reminders_sent_habit_id_window_start_pk" PRIMARY KEY("habit_id","window_start")
);
--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "reminder_time" text;--> statement-breakpoint
ALTER TABLE "tracking"."habits" ADD COLUMN "remind_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "reminders_sent_window_end_idx" ON "tracking"."reminders_sent" USING btree ("window_end");--> statement-breakpoint
CREATE INDEX "habits_remind_at_idx" ON "tracking"."habits" USING btree ("remind_at");