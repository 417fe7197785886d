CREATE SCHEMA "avatar";
--> statement-breakpoint
CREATE SCHEMA "identity";
--> statement-breakpoint
CREATE TABLE "avatar"."avatars" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" uuid NOT NULL,
	"name" text NOT NULL,
	"level" integer NOT NULL,
	"experience" integer NOT NULL,
	"health" integer NOT NULL,
	"max_health" integer NOT NULL,
	"mana" integer NOT NULL,
	"max_mana" integer NOT NULL,
	"money" bigint NOT NULL,
	"strength" integer NOT NULL,
	"defense" integer NOT NULL,
	"intelligence" integer NOT NULL,
	"unspent_points" integer NOT NULL,
	"inventory_id" uuid NOT NULL,
	"equipment_id" uuid NOT NULL,
	"inventory" jsonb NOT NULL,
	"equipped" jsonb NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "avatar"."outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"version" integer NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	"published_at" timestamp with time zone,
	CONSTRAINT "outbox_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "identity"."outbox" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" uuid NOT NULL,
	"type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"version" integer NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	"published_at" timestamp with time zone,
	CONSTRAINT "outbox_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "identity"."refresh_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"family_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"spent_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "refresh_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "identity"."revoked_access_tokens" (
	"token_id" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text DEFAULT 'player' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE INDEX "avatars_owner_idx" ON "avatar"."avatars" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "avatars_level_idx" ON "avatar"."avatars" USING btree ("level");--> statement-breakpoint
CREATE INDEX "outbox_published_at_seq_index" ON "avatar"."outbox" USING btree ("published_at","seq");--> statement-breakpoint
CREATE INDEX "outbox_published_at_seq_index" ON "identity"."outbox" USING btree ("published_at","seq");--> statement-breakpoint
CREATE INDEX "refresh_tokens_family_idx" ON "identity"."refresh_tokens" USING btree ("family_id");