CREATE TABLE "avatar"."applied_calls" (
	"key" text PRIMARY KEY NOT NULL,
	"avatar_id" text NOT NULL,
	"operation" text NOT NULL,
	"result" jsonb,
	"applied_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "applied_calls_avatar_idx" ON "avatar"."applied_calls" USING btree ("avatar_id");