(* ProgramSelftest.v — a worked example of Program.v: a statement about every execution of a
   concrete program, proved by enumerating its candidates with vm_compute.

   Compiled by tests/it/coq_program.rs inside an export directory (it needs the generated Exec.v
   and Model_wf.v). The skeleton literals list every field of [bexec]: a new vocabulary name
   must be added here too.

   Message passing with a guard (n = 6):
     0: W x=0 (initial)    1: W y=0 (initial)
     P0: 2: W x=1 (plain)  po  3: W_rel y=1
     P1: 4: r = R_acq y    po  5: if (r == 1) { R x (plain) }
   Event 5 is guarded by the read 4 reading the write 3. *)
From Coq Require Import List Bool.
From Mapcheck Require Import Rel Dec Checks Exec Model_wf Program.
Import ListNotations.

Definition N : nat := 6.

Definition pairs_within (l : list nat) : brel := fun x y => bset_of_list l x && bset_of_list l y.

Definition mp_skeleton : bexec := {|
  b_E := bset_of_list [0; 1; 2; 3; 4; 5];
  b_R := bset_of_list [4; 5];
  b_W := bset_of_list [0; 1; 2; 3];
  b_M := bset_of_list [0; 1; 2; 3; 4; 5];
  b_F := bset0; b_BAR := bset0; b_EF := bset0; b_XF := bset0;
  b_IW := bset_of_list [0; 1];
  b_RMW := bset0;
  b_NA := bset_of_list [2; 5];
  b_WEAK := bset0; b_RLX := bset0;
  b_ACQ := bset_of_list [4];
  b_REL := bset_of_list [3];
  b_ACQ_REL := bset0; b_SC := bset0; b_CON := bset0; b_V := bset0; b_RED := bset0;
  b_CTA := bset0; b_CLUSTER := bset0; b_GPU := bset0; b_SYS := bset0; b_WI := bset0; b_SG := bset0; b_WG := bset0;
  b_DEV := bset0; b_ALL := bset0; b_GLOBAL := bset0; b_LOCAL := bset0; b_SYNC := bset0;
  b_ARRIVE := bset0; b_SUR := bset0; b_TEX := bset0; b_CONST := bset0; b_ALIAS := bset0;
  b_QF := bset0; b_DV := bset0; b_ATOM := bset0; b_NONPRIV := bset0; b_AV := bset0;
  b_VIS := bset0; b_SEMAV := bset0; b_SEMVIS := bset0; b_AVDEVICE := bset0; b_VISDEVICE := bset0;
  b_SC0 := bset0; b_SC1 := bset0; b_SC2 := bset0; b_SC3 := bset0;
  b_SEMSC0 := bset0; b_SEMSC1 := bset0; b_SEMSC2 := bset0; b_SEMSC3 := bset0;
  b_id := fun x y => Nat.eqb x y;
  b_po := brel_of_list [(2, 3); (4, 5)];
  b_rf := brel0; b_co := brel0; b_fr := brel0;
  b_loc := bunion (pairs_within [0; 2; 5]) (pairs_within [1; 3; 4]);
  b_vloc := bunion (pairs_within [0; 2; 5]) (pairs_within [1; 3; 4]);
  b_int := bunion (pairs_within [2; 3]) (pairs_within [4; 5]);
  b_ext := fun x y => negb (bunion (pairs_within [2; 3]) (pairs_within [4; 5]) x y);
  b_rmw := brel0; b_addr := brel0; b_data := brel0;
  b_ctrl := brel_of_list [(4, 5)];
  b_syncbar := brel0; b_ssg := pairs_within [2; 3; 4; 5];
  b_scta := pairs_within [2; 3; 4; 5];
  b_scluster := pairs_within [2; 3; 4; 5]; b_sgpu := pairs_within [2; 3; 4; 5];
  b_swg := pairs_within [2; 3; 4; 5]; b_sdv := pairs_within [2; 3; 4; 5];
  b_sqf := pairs_within [2; 3; 4; 5]; b_ssw := brel0;
  b_sr := brel0; b_incl := brel0
|}.

Definition mp : bprogram :=
  {| bpr := mp_skeleton; bgread := brel_of_list [(4, 5)]; bgwrite := brel_of_list [(3, 5)] |}.

Definition MP : program := of_bprogram N mp.
Lemma MP_r : program_reflects N MP mp.
Proof. apply of_bprogram_reflects. Qed.

(* ------------------------------------------------------------------ *)
(* 1. The candidates: 12, every one an execution of the program        *)

(* Without 5: r reads 0 (4 co choices). With 5: r reads 1, x reads 0 or 2 (2 x 4). *)
Lemma mp_count : length (candidates N mp) = 12.
Proof. Time vm_compute. reflexivity. Qed.

Lemma mp_all_run : forallb (runs_b N mp) (candidates N mp) = true.
Proof. Time vm_compute. reflexivity. Qed.

(* ------------------------------------------------------------------ *)
(* 2. A statement about every execution: with a total coherence, if    *)
(*    the acyclicity of po | rf | co | fr holds (SC) and the guarded   *)
(*    read runs, it does not read the initial x                        *)

Definition co_total_b (n : nat) (XB : bexec) : bool :=
  bempty n (bminus (bminus (binter (bcross (b_W XB) (b_W XB)) (b_loc XB)) (b_id XB))
    (bunion (b_co XB) (binv (b_co XB)))).
Lemma co_total_dec : forall n X XB, exec_reflects n X XB -> (co_total_b n XB = true <-> co_total X).
Proof. intros n X XB H. unfold co_total, co_total_b. check_tac. Qed.

Definition sc (X : exec) : Prop := acyclic (union (po X) (union (rf X) (union (co X) (fr X)))).
Definition sc_b (n : nat) (XB : bexec) : bool :=
  bacyclic n (bunion (b_po XB) (bunion (b_rf XB) (bunion (b_co XB) (b_fr XB)))).
Lemma sc_dec : forall n X XB, exec_reflects n X XB -> (sc_b n XB = true <-> sc X).
Proof. intros n X XB H. unfold sc, sc_b. check_tac. Qed.

Definition Q (X : exec) : Prop := co_total X -> sc X -> E X 5 -> ~ rf X 0 5.
Definition q (XB : bexec) : bool :=
  implb (co_total_b N XB) (implb (sc_b N XB) (implb (b_E XB 5) (negb (b_rf XB 0 5)))).

Lemma Q_stable : forall X, stable (Q X).
Proof. intro X. unfold Q. do 3 apply stable_impl. apply stable_not. Qed.

Lemma q_Q : forall X XB, exec_reflects N X XB -> runs MP X -> wf_consistent X -> q XB = true -> Q X.
Proof.
  intros X XB H _ _ B Hco Hsc E5 Rf.
  apply (co_total_dec N X XB H) in Hco. apply (sc_dec N X XB H) in Hsc.
  apply (r_E _ _ _ H) in E5. apply (r_rf _ _ _ H) in Rf.
  destruct E5 as [_ E5]. destruct Rf as (_ & _ & Rf).
  unfold q in B. rewrite Hco, Hsc, E5, Rf in B. discriminate B.
Qed.

Lemma mp_q : forallb q (candidates N mp) = true.
Proof. Time vm_compute. reflexivity. Qed.

Theorem mp_sc_guarded_read_sees_data : forall X, runs MP X -> wf_consistent X -> Q X.
Proof. exact (forall_executions N MP mp Q q MP_r Q_stable q_Q mp_q). Qed.

(* ------------------------------------------------------------------ *)
(* 3. Guards: dropping 5 while 4 reads 3 is not an execution           *)

Definition without_5 : bexec :=
  brestrict mp_skeleton (bset_of_list [0; 1; 2; 3; 4]) (brel_of_list [(3, 4)])
    (brel_of_list [(0, 2); (1, 3)]) brel0.
Definition with_5 : bexec :=
  brestrict mp_skeleton (bset_of_list [0; 1; 2; 3; 4; 5]) (brel_of_list [(3, 4); (2, 5)])
    (brel_of_list [(0, 2); (1, 3)]) brel0.

Lemma without_5_not_runs : ~ runs MP (of_bexec N without_5).
Proof.
  apply (dec_false _ _ (runs_dec N MP mp _ without_5 MP_r (of_bexec_reflects N without_5))).
  vm_compute. reflexivity.
Qed.

Lemma with_5_runs : runs MP (of_bexec N with_5).
Proof.
  apply (dec_true _ _ (runs_dec N MP mp _ with_5 MP_r (of_bexec_reflects N with_5))).
  vm_compute. reflexivity.
Qed.

(* ------------------------------------------------------------------ *)
(* 4. Size: 7 events, 2 writes per location, 3 reads, no guard         *)
(*    (P1 reads y, x, x): 2^3 rf choices x 2 x 2 co choices = 32      *)

Definition mp3_skeleton : bexec := {|
  b_E := bset_of_list [0; 1; 2; 3; 4; 5; 6];
  b_R := bset_of_list [4; 5; 6];
  b_W := bset_of_list [0; 1; 2; 3];
  b_M := bset_of_list [0; 1; 2; 3; 4; 5; 6];
  b_F := bset0; b_BAR := bset0; b_EF := bset0; b_XF := bset0;
  b_IW := bset_of_list [0; 1];
  b_RMW := bset0;
  b_NA := bset_of_list [2; 5; 6];
  b_WEAK := bset0; b_RLX := bset0;
  b_ACQ := bset_of_list [4];
  b_REL := bset_of_list [3];
  b_ACQ_REL := bset0; b_SC := bset0; b_CON := bset0; b_V := bset0; b_RED := bset0;
  b_CTA := bset0; b_CLUSTER := bset0; b_GPU := bset0; b_SYS := bset0; b_WI := bset0; b_SG := bset0; b_WG := bset0;
  b_DEV := bset0; b_ALL := bset0; b_GLOBAL := bset0; b_LOCAL := bset0; b_SYNC := bset0;
  b_ARRIVE := bset0; b_SUR := bset0; b_TEX := bset0; b_CONST := bset0; b_ALIAS := bset0;
  b_QF := bset0; b_DV := bset0; b_ATOM := bset0; b_NONPRIV := bset0; b_AV := bset0;
  b_VIS := bset0; b_SEMAV := bset0; b_SEMVIS := bset0; b_AVDEVICE := bset0; b_VISDEVICE := bset0;
  b_SC0 := bset0; b_SC1 := bset0; b_SC2 := bset0; b_SC3 := bset0;
  b_SEMSC0 := bset0; b_SEMSC1 := bset0; b_SEMSC2 := bset0; b_SEMSC3 := bset0;
  b_id := fun x y => Nat.eqb x y;
  b_po := brel_of_list [(2, 3); (4, 5); (4, 6); (5, 6)];
  b_rf := brel0; b_co := brel0; b_fr := brel0;
  b_loc := bunion (pairs_within [0; 2; 5; 6]) (pairs_within [1; 3; 4]);
  b_vloc := bunion (pairs_within [0; 2; 5; 6]) (pairs_within [1; 3; 4]);
  b_int := bunion (pairs_within [2; 3]) (pairs_within [4; 5; 6]);
  b_ext := fun x y => negb (bunion (pairs_within [2; 3]) (pairs_within [4; 5; 6]) x y);
  b_rmw := brel0; b_addr := brel0; b_data := brel0; b_ctrl := brel0; b_syncbar := brel0;
  b_ssg := pairs_within [2; 3; 4; 5; 6];
  b_scta := pairs_within [2; 3; 4; 5; 6];
  b_scluster := pairs_within [2; 3; 4; 5; 6]; b_sgpu := pairs_within [2; 3; 4; 5; 6];
  b_swg := pairs_within [2; 3; 4; 5; 6]; b_sdv := pairs_within [2; 3; 4; 5; 6];
  b_sqf := pairs_within [2; 3; 4; 5; 6]; b_ssw := brel0;
  b_sr := brel0; b_incl := brel0
|}.

Definition mp3 : bprogram := {| bpr := mp3_skeleton; bgread := brel0; bgwrite := brel0 |}.

Lemma mp3_count : length (candidates 7 mp3) = 32.
Proof. Time vm_compute. reflexivity. Qed.

Lemma mp3_all_run : forallb (runs_b 7 mp3) (candidates 7 mp3) = true.
Proof. Time vm_compute. reflexivity. Qed.

Print Assumptions mp_sc_guarded_read_sees_data.
Print Assumptions without_5_not_runs.
