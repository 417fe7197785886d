CREATE TABLE "identity"."login_failures" (
	"id" uuid PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"failed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "login_failures_key_idx" ON "identity"."login_failures" USING btree ("key_hash","failed_at");--> statement-breakpoint
CREATE INDEX "login_failures_failed_at_idx" ON "identity"."login_failures" USING btree ("failed_at");