CREATE TABLE "avatar"."closed_accounts" (
	"owner_id" uuid PRIMARY KEY NOT NULL,
	"closed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "avatar"."earnings" (
	"avatar_id" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"experience" bigint NOT NULL,
	"money" bigint NOT NULL,
	CONSTRAINT "earnings_avatar_id_bucket_pk" PRIMARY KEY("avatar_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "live"."account_avatars" (
	"avatar_id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live"."webhook_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"type" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"next_attempt_at" timestamp with time zone,
	"leased_until" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live"."webhook_endpoints" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"user_id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"secret" text NOT NULL,
	"failing_since" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracking"."calendar_feeds" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "calendar_feeds_secret_hash_unique" UNIQUE("secret_hash")
);
--> statement-breakpoint
CREATE INDEX "closed_accounts_closed_at_idx" ON "avatar"."closed_accounts" USING btree ("closed_at");--> statement-breakpoint
CREATE INDEX "earnings_bucket_idx" ON "avatar"."earnings" USING btree ("bucket");--> statement-breakpoint
CREATE INDEX "account_avatars_user_idx" ON "live"."account_avatars" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_idx" ON "live"."webhook_deliveries" USING btree ("endpoint_id","event_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_log_idx" ON "live"."webhook_deliveries" USING btree ("endpoint_id","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "live"."webhook_deliveries" USING btree ("next_attempt_at") WHERE "live"."webhook_deliveries"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_created_idx" ON "live"."webhook_deliveries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_user_idx" ON "live"."webhook_endpoints" USING btree ("user_id","seq");--> statement-breakpoint
CREATE INDEX "refresh_tokens_user_idx" ON "identity"."refresh_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "habits_owner_idx" ON "tracking"."habits" USING btree ("owner_id","seq");