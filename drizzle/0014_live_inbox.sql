CREATE SCHEMA "live";
--> statement-breakpoint
CREATE TABLE "live"."inbox" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live"."notifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"avatar_id" text NOT NULL,
	"type" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"read_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "live"."outbox" (
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
CREATE INDEX "inbox_handled_at_index" ON "live"."inbox" USING btree ("handled_at");--> statement-breakpoint
CREATE INDEX "notifications_avatar_idx" ON "live"."notifications" USING btree ("avatar_id","seq");--> statement-breakpoint
CREATE INDEX "notifications_unread_idx" ON "live"."notifications" USING btree ("avatar_id","seq") WHERE "live"."notifications"."read_at" is null;--> statement-breakpoint
CREATE INDEX "notifications_created_idx" ON "live"."notifications" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "outbox_published_at_seq_index" ON "live"."outbox" USING btree ("published_at","seq");