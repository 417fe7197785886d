CREATE TABLE "tracking"."attend_answers" (
	"key" text PRIMARY KEY NOT NULL,
	"habit_id" uuid NOT NULL,
	"operation" text NOT NULL,
	"result" jsonb,
	"answered_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "attend_answers_answered_at_idx" ON "tracking"."attend_answers" USING btree ("answered_at");