CREATE SCHEMA "quest";
--> statement-breakpoint
CREATE TABLE "quest"."inbox" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quest"."outbox" (
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
CREATE TABLE "quest"."participations" (
	"id" uuid NOT NULL,
	"quest_id" uuid NOT NULL,
	"avatar_id" text NOT NULL,
	"seq" bigserial NOT NULL,
	"status" text NOT NULL,
	"time_zone" text NOT NULL,
	"window_from" text NOT NULL,
	"window_to" text NOT NULL,
	"payout_experience" integer NOT NULL,
	"payout_money" integer NOT NULL,
	"habits" jsonb NOT NULL,
	"copies_made" boolean NOT NULL,
	"joined_at" timestamp with time zone NOT NULL,
	"version" integer NOT NULL,
	CONSTRAINT "participations_quest_id_avatar_id_pk" PRIMARY KEY("quest_id","avatar_id"),
	CONSTRAINT "participations_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "quest"."pending_unlinks" (
	"habit_id" uuid PRIMARY KEY NOT NULL,
	"quest_id" uuid NOT NULL,
	"queued_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quest"."quests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"duration" text NOT NULL,
	"reward_experience" integer NOT NULL,
	"reward_money" integer NOT NULL,
	"guild_id" text,
	"owner_avatar_id" text NOT NULL,
	"owner_id" uuid NOT NULL,
	"habits" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "outbox_published_at_seq_index" ON "quest"."outbox" USING btree ("published_at","seq");--> statement-breakpoint
CREATE INDEX "participations_quest_idx" ON "quest"."participations" USING btree ("quest_id","seq");--> statement-breakpoint
CREATE INDEX "participations_avatar_idx" ON "quest"."participations" USING btree ("avatar_id");--> statement-breakpoint
CREATE INDEX "participations_running_idx" ON "quest"."participations" USING btree ("status","window_to");--> statement-breakpoint
CREATE INDEX "participations_copying_idx" ON "quest"."participations" USING btree ("copies_made","joined_at");--> statement-breakpoint
CREATE INDEX "quests_seq_idx" ON "quest"."quests" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "quests_owner_idx" ON "quest"."quests" USING btree ("owner_id","seq");--> statement-breakpoint
CREATE INDEX "quests_guild_idx" ON "quest"."quests" USING btree ("guild_id","seq");