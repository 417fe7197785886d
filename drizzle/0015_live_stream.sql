CREATE TABLE "live"."guild_members" (
	"avatar_id" text PRIMARY KEY NOT NULL,
	"guild_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live"."stream_events" (
	"avatar_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"type" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "stream_events_avatar_id_seq_pk" PRIMARY KEY("avatar_id","seq")
);
--> statement-breakpoint
CREATE TABLE "live"."stream_tickets" (
	"hash" text PRIMARY KEY NOT NULL,
	"avatar_id" text NOT NULL,
	"user_id" text NOT NULL,
	"token_id" text NOT NULL,
	"token_expires_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live"."streams" (
	"avatar_id" text PRIMARY KEY NOT NULL,
	"last_seq" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "guild_members_guild_idx" ON "live"."guild_members" USING btree ("guild_id");--> statement-breakpoint
CREATE INDEX "stream_events_occurred_idx" ON "live"."stream_events" USING btree ("occurred_at");--> statement-breakpoint
CREATE INDEX "stream_tickets_expires_idx" ON "live"."stream_tickets" USING btree ("expires_at");--> statement-breakpoint
-- The guilds' members as they are now (later changes arrive as events); in split services each context may have its own database, where this finds nothing to copy.
DO $$ BEGIN
  IF to_regclass('guild.members') IS NOT NULL THEN
    INSERT INTO "live"."guild_members" ("avatar_id", "guild_id") SELECT "avatar_id", "guild_id"::text FROM "guild"."members" ON CONFLICT DO NOTHING;
  END IF;
END $$;
