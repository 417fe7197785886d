CREATE SCHEMA "guild";
--> statement-breakpoint
CREATE TABLE "guild"."attacks" (
	"battle_id" uuid NOT NULL,
	"turn" integer NOT NULL,
	"attacker_avatar_id" text NOT NULL,
	"requested_damage" integer NOT NULL,
	"dealt" integer NOT NULL,
	"strike_back" integer NOT NULL,
	"attacker_fell" boolean NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "attacks_battle_id_turn_pk" PRIMARY KEY("battle_id","turn")
);
--> statement-breakpoint
CREATE TABLE "guild"."battles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"guild_id" uuid NOT NULL,
	"boss_type" text NOT NULL,
	"status" text NOT NULL,
	"current_turn" integer NOT NULL,
	"num_of_turns" integer NOT NULL,
	"boss_remaining_health" integer NOT NULL,
	"participants" jsonb NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "guild"."guilds" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"name" text NOT NULL,
	"points" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guild"."inbox" (
	"event_id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"handled_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guild"."invites" (
	"id" uuid PRIMARY KEY NOT NULL,
	"guild_id" uuid NOT NULL,
	"target_avatar_id" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guild"."members" (
	"avatar_id" text PRIMARY KEY NOT NULL,
	"guild_id" uuid NOT NULL,
	"seq" bigserial NOT NULL,
	"nickname" text NOT NULL,
	"role" text NOT NULL,
	"joined_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guild"."outbox" (
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
CREATE TABLE "guild"."rank_tallies" (
	"level" smallint NOT NULL,
	"key" bigint NOT NULL,
	"block" bigint NOT NULL,
	"guilds" integer NOT NULL,
	CONSTRAINT "rank_tallies_level_key_block_pk" PRIMARY KEY("level","key","block")
);
--> statement-breakpoint
CREATE INDEX "battles_guild_idx" ON "guild"."battles" USING btree ("guild_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "battles_one_in_progress_key" ON "guild"."battles" USING btree ("guild_id") WHERE "guild"."battles"."status" = 'IN_PROGRESS';--> statement-breakpoint
CREATE UNIQUE INDEX "guilds_name_key" ON "guild"."guilds" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "guilds_rank_idx" ON "guild"."guilds" USING btree ("points" DESC NULLS FIRST,"seq");--> statement-breakpoint
CREATE UNIQUE INDEX "invites_pending_key" ON "guild"."invites" USING btree ("guild_id","target_avatar_id");--> statement-breakpoint
CREATE INDEX "invites_target_idx" ON "guild"."invites" USING btree ("target_avatar_id");--> statement-breakpoint
CREATE INDEX "invites_expiry_idx" ON "guild"."invites" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "members_guild_idx" ON "guild"."members" USING btree ("guild_id");--> statement-breakpoint
CREATE UNIQUE INDEX "members_nickname_key" ON "guild"."members" USING btree ("guild_id",lower("nickname"));--> statement-breakpoint
CREATE INDEX "outbox_published_at_seq_index" ON "guild"."outbox" USING btree ("published_at","seq");